//! Shared helpers of the symmetric-primitive vector tests (`sym_*.rs`).
//! Only parsing: every check lives in the test files.
#![allow(dead_code)]

use std::collections::BTreeMap;

/// One record of a NIST CAVP `.rsp`-style text file.
#[derive(Debug, Clone)]
pub struct Record {
    /// `[Name = value]` section headers in force for this record.
    pub header: BTreeMap<String, String>,
    /// `Name = value` fields of the record (value trimmed; may be empty).
    pub fields: BTreeMap<String, String>,
    /// A bare `FAIL` line was present (expected failure).
    pub fail: bool,
}

impl Record {
    /// A field's raw value; panics with the field name if missing.
    pub fn get(&self, name: &str) -> &str {
        self.fields
            .get(name)
            .map(String::as_str)
            .unwrap_or_else(|| panic!("missing field {name} in {:?}", self.fields))
    }

    /// A field decoded from hex.
    pub fn hex(&self, name: &str) -> Vec<u8> {
        unhex(self.get(name))
    }

    /// A field parsed as a decimal integer.
    pub fn num(&self, name: &str) -> usize {
        self.get(name)
            .parse()
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    /// A section header parsed as a decimal integer.
    pub fn num_header(&self, name: &str) -> usize {
        self.head(name)
            .parse()
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    /// A section header value; panics if missing.
    pub fn head(&self, name: &str) -> &str {
        self.header
            .get(name)
            .map(String::as_str)
            .unwrap_or_else(|| panic!("missing header {name}"))
    }
}

/// Parses a CAVP-style file: `#` comments, `[K = V]` headers, `K = V` fields,
/// bare `FAIL` lines. A new record starts at each field named `start`;
/// fields before the first record are treated as headers.
pub fn parse_rsp(text: &str, start: &str) -> Vec<Record> {
    let mut header = BTreeMap::new();
    let mut out: Vec<Record> = Vec::new();
    for raw in text.lines() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(inner) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let (k, v) = inner.split_once('=').unwrap_or((inner, ""));
            header.insert(k.trim().to_string(), v.trim().to_string());
            continue;
        }
        if line == "FAIL" {
            out.last_mut().expect("FAIL before any record").fail = true;
            continue;
        }
        let (k, v) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("unparsable line: {line}"));
        let (k, v) = (k.trim(), v.trim());
        if k == start {
            out.push(Record {
                header: header.clone(),
                fields: BTreeMap::new(),
                fail: false,
            });
        }
        let Some(rec) = out.last_mut() else {
            // A field before the first record (e.g. SHAVS Monte `Seed`) is global:
            // keep it with the headers.
            header.insert(k.to_string(), v.to_string());
            continue;
        };
        assert!(
            rec.fields.insert(k.to_string(), v.to_string()).is_none(),
            "duplicate field {k}"
        );
    }
    out
}

/// Hex decode (panics on malformed input, which would be a corrupt vector file).
pub fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap_or_else(|e| panic!("bad hex {s:?}: {e}"))
}
