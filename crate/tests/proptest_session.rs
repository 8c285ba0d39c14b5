//! A randomized two-party simulation of the triple ratchet (proptest picks
//! the seeds): 10,000 messages per case with random senders, reordering,
//! drops and duplicate deliveries. Invariants: a message decrypts at most
//! once and to what was sent; a duplicate never decrypts; the newest message
//! sent last to a party always decrypts; at the end both sides still agree (a fresh
//! round trip in both directions decrypts).
//!
//! Few cases (each is 10,000 messages); `PROPTEST_CASES=N` overrides.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::cast_possible_truncation
)]

mod proptest_util;
mod session_util;
use proptest_util::cases;

use proptest::prelude::*;
use session_util::{NOW, TestRng, pair, pair_v2};
use veilkit::session::SessionError;
use veilkit::session::ratchet::RatchetState;

struct Prng(u64);
impl Prng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 17
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

struct InFlight {
    id: u64,
    bytes: Vec<u8>,
}

fn deliver(
    to: &mut RatchetState,
    m: &InFlight,
    delivered: &mut [bool],
) -> Result<(), SessionError> {
    let (next, pt) = to.decrypt(&m.bytes, b"", NOW)?;
    assert!(
        !delivered[m.id as usize],
        "message {} decrypted twice",
        m.id
    );
    assert_eq!(pt.to_vec(), m.id.to_be_bytes().to_vec());
    delivered[m.id as usize] = true;
    *to = next;
    Ok(())
}

fn simulate(seed: u64, total: u64, v2: bool) {
    let mut prng = Prng(seed);
    let mut rng = TestRng::new((seed & 0xff) as u8);
    let (a, b) = if v2 {
        pair_v2(&mut rng)
    } else {
        pair(&mut rng)
    };
    let mut parties = [a, b];
    let mut queues: [Vec<InFlight>; 2] = [Vec::new(), Vec::new()]; // queues[i]: to party i
    let mut done: [Vec<InFlight>; 2] = [Vec::new(), Vec::new()];
    let mut delivered = vec![false; usize::try_from(total).unwrap()];
    let mut b_heard = false;
    let mut last_sent: [Option<u64>; 2] = [None, None];
    let mut sent = 0u64;
    let (mut ok, mut lost) = (0u64, 0u64);
    while sent < total || !queues[0].is_empty() || !queues[1].is_empty() {
        let action = prng.below(100);
        if sent < total && action < 45 {
            let from = if b_heard { prng.below(2) } else { 0 };
            let bytes = parties[from]
                .encrypt(&sent.to_be_bytes(), b"", &mut rng)
                .unwrap();
            queues[1 - from].push(InFlight { id: sent, bytes });
            last_sent[1 - from] = Some(sent);
            sent += 1;
            continue;
        }
        let to = prng.below(2);
        if queues[to].is_empty() {
            continue;
        }
        if action < 55
            && queues[to]
                .last()
                .is_some_and(|m| Some(m.id) == last_sent[to])
        {
            // The message sent last to this party always decrypts.
            let m = queues[to].pop().unwrap();
            deliver(&mut parties[to], &m, &mut delivered).unwrap();
            ok += 1;
            b_heard |= to == 1;
            done[to].push(m);
        } else if action < 88 || sent >= total {
            let i = prng.below(queues[to].len());
            let m = queues[to].remove(i);
            match deliver(&mut parties[to], &m, &mut delivered) {
                Ok(()) => {
                    ok += 1;
                    b_heard |= to == 1;
                }
                // Out of the window (its chain evicted, its key evicted or expired, too far).
                Err(_) => lost += 1,
            }
            done[to].push(m);
        } else if action < 95 && !done[to].is_empty() {
            let i = prng.below(done[to].len());
            let m = &done[to][i];
            let before = parties[to].to_bytes();
            assert!(
                parties[to].decrypt(&m.bytes, b"", NOW).is_err(),
                "duplicate {} accepted",
                m.id
            );
            assert_eq!(*parties[to].to_bytes(), *before);
        } else {
            let i = prng.below(queues[to].len());
            queues[to].remove(i);
            lost += 1;
        }
    }
    assert_eq!(ok + lost, total);
    assert!(ok > total / 2, "only {ok} of {total} delivered");
    // Both sides still agree.
    let [a, b] = &mut parties;
    for round in 0..3u8 {
        let m = a.encrypt(&[round], b"end", &mut rng).unwrap();
        let (nb, pt) = b.decrypt(&m, b"end", NOW).unwrap();
        *b = nb;
        assert_eq!(pt.to_vec(), vec![round]);
        let m = b.encrypt(&[round, 1], b"end", &mut rng).unwrap();
        let (na, pt) = a.decrypt(&m, b"end", NOW).unwrap();
        *a = na;
        assert_eq!(pt.to_vec(), vec![round, 1]);
    }
    let restored = RatchetState::from_bytes(&a.to_bytes()).unwrap();
    assert_eq!(*restored.to_bytes(), *a.to_bytes());
}

proptest! {
    #![proptest_config(cases(3))]

    #[test]
    fn randomized_two_party_simulation_with_drops_duplicates_and_reordering_ends_consistent(seed in any::<u64>()) {
        simulate(seed, 10_000, false);
    }

    /// The same simulation on protocol version 2 (chunked PQ epochs).
    #[test]
    fn randomized_two_party_simulation_on_version_2_ends_consistent(seed in any::<u64>()) {
        simulate(seed, 10_000, true);
    }
}
