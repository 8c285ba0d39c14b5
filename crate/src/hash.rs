//! TODO: being written.
