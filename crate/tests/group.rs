//! MLS groups (crate::group, feature `group`): the flow on both suites, the
//! state codec, commit conflicts, attack-shaped tests (replayed, forged,
//! bit-flipped and wrong-epoch messages leave the state unchanged), and a
//! randomized simulation where every member that should read a message does.
#![cfg(feature = "group")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::cast_possible_truncation
)]

use veilkit::group::{Client, CommitOutput, Group, GroupError, Received, Suite};

const SUITES: [Suite; 2] = [Suite::Classic, Suite::XWing];

struct M {
    c: Client,
    g: Option<Group>,
}

fn member(name: &str) -> M {
    M {
        c: Client::new(name.as_bytes()).unwrap(),
        g: None,
    }
}

impl M {
    fn g(&mut self) -> &mut Group {
        self.g.as_mut().unwrap()
    }
    fn recv(&mut self, bytes: &[u8]) -> Result<Received, GroupError> {
        let M { c, g } = self;
        g.as_mut().unwrap().receive(c, bytes)
    }
    fn read(&mut self, bytes: &[u8]) -> Vec<u8> {
        match self.recv(bytes).unwrap() {
            Received::Application { bytes, .. } => bytes.to_vec(),
            other => panic!("expected an application message, got {other:?}"),
        }
    }
    fn send(&mut self, text: &[u8]) -> Vec<u8> {
        self.enc(text).unwrap()
    }
    fn enc(&mut self, text: &[u8]) -> Result<Vec<u8>, GroupError> {
        self.enc_aad(text, b"")
    }
    fn enc_aad(&mut self, text: &[u8], aad: &[u8]) -> Result<Vec<u8>, GroupError> {
        let M { c, g } = self;
        g.as_mut().unwrap().encrypt(c, text, aad)
    }
    fn add(&mut self, kps: &[&[u8]]) -> Result<CommitOutput, GroupError> {
        let M { c, g } = self;
        g.as_mut().unwrap().add(c, kps)
    }
    fn update(&mut self) -> Result<CommitOutput, GroupError> {
        let M { c, g } = self;
        g.as_mut().unwrap().update(c)
    }
    fn remove(&mut self, leaves: &[u32]) -> Result<CommitOutput, GroupError> {
        let M { c, g } = self;
        g.as_mut().unwrap().remove(c, leaves)
    }
    fn merge(&mut self) -> Result<(), GroupError> {
        let M { c, g } = self;
        g.as_mut().unwrap().merge_pending(c)
    }
    fn epoch(&self) -> u64 {
        self.g.as_ref().unwrap().info().unwrap().epoch
    }
    fn state(&self) -> Vec<u8> {
        self.c.export_state().to_vec()
    }
}

/// `a` creates a group and adds every other member with one commit each; all see each commit.
fn group_of(suite: Suite, names: &[&str]) -> Vec<M> {
    let mut ms: Vec<M> = names.iter().map(|n| member(n)).collect();
    ms[0].g = Some(ms[0].c.create_group(suite).unwrap());
    for i in 1..ms.len() {
        let kp = ms[i].c.create_key_package(suite, false).unwrap();
        let (a, rest) = ms.split_at_mut(1);
        let out = a[0].add(&[&kp]).unwrap();
        a[0].merge().unwrap();
        for m in rest.iter_mut().take(i - 1) {
            m.recv(&out.commit).unwrap();
        }
        let joined = rest[i - 1].c.join(out.welcome.as_ref().unwrap()).unwrap();
        rest[i - 1].g = Some(joined);
    }
    ms
}

#[test]
fn three_members_on_both_suites_message_update_and_remove() {
    for suite in SUITES {
        let mut ms = group_of(suite, &["alice", "bob", "carol"]);
        let info = ms[2].g().info().unwrap();
        assert_eq!(info.suite, suite);
        assert_eq!(info.epoch, 2);
        let ids: Vec<Vec<u8>> = info.members.iter().map(|m| m.identity.clone()).collect();
        assert_eq!(
            ids,
            vec![b"alice".to_vec(), b"bob".to_vec(), b"carol".to_vec()]
        );

        // Application messages from each member, read by the two others, with their AAD and sender.
        for s in 0..3 {
            let text = format!("hello from {s}");
            let wire = ms[s].enc_aad(text.as_bytes(), b"aad").unwrap();
            for r in (0..3).filter(|&r| r != s) {
                match ms[r].recv(&wire).unwrap() {
                    Received::Application {
                        sender,
                        sender_identity,
                        bytes,
                        aad,
                    } => {
                        assert_eq!(sender as usize, s);
                        assert_eq!(sender_identity, ids[s]);
                        assert_eq!(bytes.as_slice(), text.as_bytes());
                        assert_eq!(aad, b"aad");
                    }
                    other => panic!("{other:?}"),
                }
            }
        }

        // Bob updates; the others process it.
        let out = ms[1].update().unwrap();
        ms[1].merge().unwrap();
        for r in [0, 2] {
            assert!(matches!(
                ms[r].recv(&out.commit).unwrap(),
                Received::Commit {
                    sender: Some(1),
                    epoch: 3,
                    ..
                }
            ));
        }

        // Alice removes Carol: Bob sees the removal, Carol sees her own, and cannot read the next epoch.
        let out = ms[0].remove(&[2]).unwrap();
        ms[0].merge().unwrap();
        match ms[1].recv(&out.commit).unwrap() {
            Received::Commit {
                removed,
                removed_self,
                ..
            } => {
                assert_eq!(removed, vec![2]);
                assert!(!removed_self);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            ms[2].recv(&out.commit).unwrap(),
            Received::Commit {
                removed_self: true,
                ..
            }
        ));
        assert!(!ms[2].g().info().unwrap().active);
        let next = ms[0].send(b"after carol left");
        assert_eq!(ms[1].read(&next), b"after carol left");
        assert!(
            ms[2].recv(&next).is_err(),
            "a removed member reads nothing of the next epoch"
        );
        assert_eq!(ms[2].enc(b"x").unwrap_err(), GroupError::NotAMember);
    }
}

#[test]
fn attack_bit_flipped_and_forged_messages_change_nothing() {
    let mut ms = group_of(Suite::XWing, &["alice", "bob"]);
    let wire = ms[0].send(b"genuine");
    let before = ms[1].state();
    for i in [0, 3, 20, wire.len() / 2, wire.len() - 1] {
        let mut bad = wire.clone();
        bad[i] ^= 0x01;
        assert!(ms[1].recv(&bad).is_err(), "a bit flip at {i} is refused");
        assert_eq!(
            ms[1].state(),
            before,
            "state unchanged after the flip at {i}"
        );
    }
    // A forged message: a key package where a message belongs, and random bytes.
    let kp = ms[0].c.create_key_package(Suite::XWing, false).unwrap();
    assert!(matches!(ms[1].recv(&kp), Err(GroupError::Malformed(_))));
    assert!(matches!(
        ms[1].recv(&[0u8; 64]),
        Err(GroupError::Malformed(_))
    ));
    assert_eq!(ms[1].state(), before);
    assert_eq!(
        ms[1].read(&wire),
        b"genuine",
        "the genuine message still decrypts"
    );
}

#[test]
fn attack_replayed_application_message_and_commit() {
    let mut ms = group_of(Suite::Classic, &["alice", "bob", "carol"]);
    let wire = ms[0].send(b"once");
    assert_eq!(ms[1].read(&wire), b"once");
    let state = ms[1].state();
    assert_eq!(ms[1].recv(&wire).unwrap_err(), GroupError::DuplicateMessage);
    assert_eq!(ms[1].state(), state);

    let out = ms[0].update().unwrap();
    ms[0].merge().unwrap();
    ms[1].recv(&out.commit).unwrap();
    let state = ms[1].state();
    assert_eq!(
        ms[1].recv(&out.commit).unwrap_err(),
        GroupError::WrongEpoch,
        "a replayed commit is refused"
    );
    assert_eq!(ms[1].state(), state);
    // The genuine traffic of the new epoch still flows.
    ms[2].recv(&out.commit).unwrap();
    let wire = ms[2].send(b"still here");
    assert_eq!(ms[1].read(&wire), b"still here");
}

#[test]
fn an_application_message_of_a_past_epoch_is_wrong_epoch_also_for_a_member_that_joined_later() {
    let mut ms = group_of(Suite::Classic, &["alice", "bob", "carol"]);
    let old = ms[0].send(b"before the update");
    assert_eq!(ms[1].read(&old), b"before the update");
    let out = ms[0].update().unwrap();
    ms[0].merge().unwrap();
    ms[2].recv(&out.commit).unwrap();
    // Carol never read it; Bob did, then moved on: both are past its epoch, neither keeps its secrets.
    assert_eq!(ms[2].recv(&old).unwrap_err(), GroupError::WrongEpoch);
    ms[1].recv(&out.commit).unwrap();
    assert_eq!(ms[1].recv(&old).unwrap_err(), GroupError::WrongEpoch);
    // In the current epoch a replay is still a duplicate.
    let now = ms[0].send(b"now");
    assert_eq!(ms[1].read(&now), b"now");
    assert_eq!(ms[1].recv(&now).unwrap_err(), GroupError::DuplicateMessage);
}

#[test]
fn attack_commit_for_a_future_epoch_is_refused_then_applies_in_order() {
    let mut ms = group_of(Suite::Classic, &["alice", "bob", "carol"]);
    let first = ms[0].update().unwrap();
    ms[0].merge().unwrap();
    ms[1].recv(&first.commit).unwrap();
    let second = ms[1].update().unwrap();
    ms[1].merge().unwrap();
    // Carol gets the second commit (epoch + 1) before the first.
    let state = ms[2].state();
    let e = ms[2].epoch();
    assert_eq!(
        ms[2].recv(&second.commit).unwrap_err(),
        GroupError::WrongEpoch
    );
    assert_eq!(ms[2].state(), state);
    ms[2].recv(&first.commit).unwrap();
    ms[2].recv(&second.commit).unwrap();
    assert_eq!(ms[2].epoch(), e + 2);
}

#[test]
fn attack_bit_flipped_commit_and_welcome_are_refused() {
    let mut ms = group_of(Suite::Classic, &["alice", "bob"]);
    let mut dave = member("dave");
    let kp = dave.c.create_key_package(Suite::Classic, false).unwrap();
    let out = ms[0].add(&[&kp]).unwrap();
    ms[0].merge().unwrap();
    let state = ms[1].state();
    for i in [10, out.commit.len() / 2, out.commit.len() - 2] {
        let mut bad = out.commit.clone();
        bad[i] ^= 0x80;
        assert!(ms[1].recv(&bad).is_err());
        assert_eq!(ms[1].state(), state);
    }
    ms[1].recv(&out.commit).unwrap();
    let welcome = out.welcome.unwrap();
    let dave_state = dave.state();
    for i in [12, welcome.len() / 2, welcome.len() - 2] {
        let mut bad = welcome.clone();
        bad[i] ^= 0x80;
        assert!(dave.c.join(&bad).is_err(), "flip at {i}");
        assert_eq!(
            dave.state(),
            dave_state,
            "the key package is not consumed by a forged welcome"
        );
    }
    dave.g = Some(dave.c.join(&welcome).unwrap());
    let wire = ms[1].send(b"welcome dave");
    assert_eq!(dave.read(&wire), b"welcome dave");
    // The key package was consumed: the same welcome again finds none.
    assert_eq!(
        dave.c.join(&welcome).unwrap_err(),
        GroupError::NoMatchingKeyPackage
    );
}

/// A refused commit can fail after the receiver's own pending commit for that epoch was discarded:
/// every record the attempt changed is put back (the pending commit too), and the member's other
/// group is untouched. The storage's undo journal, not a copy of the whole client, does this.
#[test]
fn attack_a_refused_commit_puts_back_the_discarded_pending_commit_in_a_member_of_two_groups() {
    for suite in SUITES {
        let mut ms = group_of(suite, &["alice", "bob"]);
        // Bob is in a second group, of carol's.
        let mut carol = member("carol");
        carol.g = Some(carol.c.create_group(suite).unwrap());
        let kp = ms[1].c.create_key_package(suite, false).unwrap();
        let out = carol.add(&[&kp]).unwrap();
        carol.merge().unwrap();
        let mut second = ms[1].c.join(out.welcome.as_ref().unwrap()).unwrap();
        // Bob's own update is pending when alice's commit for the same epoch arrives.
        let own = ms[1].update().unwrap();
        let theirs = ms[0].update().unwrap();
        ms[0].merge().unwrap();
        let before = ms[1].state();
        for i in [theirs.commit.len() - 2, theirs.commit.len() - 40] {
            let mut bad = theirs.commit.clone();
            bad[i] ^= 0x01;
            assert!(ms[1].recv(&bad).is_err(), "flip at {i}");
            assert_eq!(ms[1].state(), before, "flip at {i}");
        }
        // The pending commit survived: merging it would still be possible; alice's genuine commit
        // wins instead, and both groups still work.
        ms[1].recv(&theirs.commit).unwrap();
        assert_eq!(ms[1].epoch(), ms[0].epoch());
        let wire = ms[0].send(b"after");
        assert_eq!(ms[1].read(&wire), b"after");
        let wire = carol.send(b"other group");
        match second.receive(&ms[1].c, &wire).unwrap() {
            Received::Application { bytes, .. } => assert_eq!(bytes.to_vec(), b"other group"),
            other => panic!("expected an application message, got {other:?}"),
        }
        drop(own);
    }
}

#[test]
fn attack_key_package_with_a_bad_signature_or_another_suite_is_refused() {
    let mut ms = group_of(Suite::XWing, &["alice"]);
    let bob = member("bob");
    let mut kp = bob.c.create_key_package(Suite::XWing, false).unwrap();
    let n = kp.len();
    kp[n - 5] ^= 0x01; // inside the trailing Ed25519 signature
    assert!(matches!(
        ms[0].add(&[&kp]),
        Err(GroupError::InvalidKeyPackage(_))
    ));
    let classic = bob.c.create_key_package(Suite::Classic, false).unwrap();
    assert!(matches!(
        ms[0].add(&[&classic]),
        Err(GroupError::InvalidKeyPackage(_))
    ));
    let own = ms[0].c.create_key_package(Suite::XWing, false).unwrap();
    assert!(matches!(
        ms[0].add(&[&own]),
        Err(GroupError::InvalidKeyPackage(_))
    ));
    assert_eq!(ms[0].epoch(), 0);
    assert!(!ms[0].g().info().unwrap().commit_pending);
}

#[test]
fn commit_conflict_the_delivery_service_order_wins() {
    let mut ms = group_of(Suite::Classic, &["alice", "bob", "carol"]);
    // Alice and Bob both commit in epoch 2; the delivery service accepts Alice's.
    let a = ms[0].update().unwrap();
    let b = ms[1].update().unwrap();
    assert_eq!(ms[1].enc(b"x").unwrap_err(), GroupError::CommitPending);
    ms[0].merge().unwrap();
    match ms[1].recv(&a.commit).unwrap() {
        Received::Commit {
            discarded_own,
            epoch,
            ..
        } => {
            assert!(discarded_own, "bob's losing commit is discarded");
            assert_eq!(epoch, 3);
        }
        other => panic!("{other:?}"),
    }
    ms[2].recv(&a.commit).unwrap();
    assert_eq!(
        ms[2].recv(&b.commit).unwrap_err(),
        GroupError::WrongEpoch,
        "the losing commit is refused"
    );
    // Bob re-applies his intent in the new epoch; everyone converges.
    let b2 = ms[1].update().unwrap();
    ms[1].merge().unwrap();
    ms[0].recv(&b2.commit).unwrap();
    ms[2].recv(&b2.commit).unwrap();
    assert!(ms.iter().all(|m| m.epoch() == 4));
    let wire = ms[2].send(b"converged");
    assert_eq!(ms[0].read(&wire), b"converged");
    assert_eq!(ms[1].read(&wire), b"converged");
}

#[test]
fn state_round_trips_and_non_canonical_states_are_refused() {
    let mut ms = group_of(Suite::XWing, &["alice", "bob"]);
    let id = ms[1].g().id();
    let state = ms[1].state();
    let restored = Client::import_state(&state).unwrap();
    assert_eq!(
        restored.export_state().to_vec(),
        state,
        "one state, one encoding"
    );
    assert_eq!(restored.identity(), b"bob");
    let mut bob = M {
        g: Some(restored.load_group(&id).unwrap()),
        c: restored,
    };
    let wire = ms[0].send(b"after reload");
    assert_eq!(bob.read(&wire), b"after reload");
    let back = bob.send(b"from the reloaded bob");
    assert_eq!(ms[0].read(&back), b"from the reloaded bob");

    let mut trailing = state.clone();
    trailing.push(0);
    assert!(matches!(
        Client::import_state(&trailing),
        Err(GroupError::Malformed(_))
    ));
    assert!(matches!(
        Client::import_state(&state[..state.len() - 1]),
        Err(GroupError::Malformed(_))
    ));
    let mut magic = state.clone();
    magic[0] ^= 1;
    assert!(matches!(
        Client::import_state(&magic),
        Err(GroupError::Malformed(_))
    ));
    // The earlier format (serde_json records) is refused by name, not parsed.
    assert_eq!(&state[..8], b"VKMLSC02");
    let mut v1 = state.clone();
    v1[..8].copy_from_slice(b"VKMLSC01");
    assert!(matches!(
        Client::import_state(&v1),
        Err(GroupError::Malformed(m)) if m.contains("VKMLSC01")
    ));
    // A record that does not parse (the ratchet tree's postcard overwritten with 0xFF) fails the
    // load with a typed error, and the client stays usable.
    let id_len = usize::from(u16::from_be_bytes([state[40], state[41]]));
    let be32 = |b: &[u8], at: usize| u32::from_be_bytes(b[at..at + 4].try_into().unwrap()) as usize;
    let mut at = 42 + id_len + 4;
    let mut bad = state.clone();
    let mut trees = 0;
    while at < bad.len() {
        let k_len = be32(&bad, at);
        let tag = bad[at + 4];
        at += 4 + k_len;
        let v_len = be32(&bad, at);
        if tag == 5 {
            bad[at + 4..at + 4 + v_len].fill(0xFF);
            trees += 1;
        }
        at += 4 + v_len;
    }
    assert_eq!(trees, 1, "one group, one tree record (tag 5)");
    let broken = Client::import_state(&bad).unwrap();
    assert_eq!(broken.load_group(&id).err(), Some(GroupError::Internal));
    assert!(broken.create_key_package(Suite::XWing, false).is_ok());
    // An entry count larger than the bytes can hold is refused before allocating.
    let id_len = usize::from(u16::from_be_bytes([state[40], state[41]]));
    let mut count = state.clone();
    count[42 + id_len..46 + id_len].copy_from_slice(&u32::MAX.to_be_bytes());
    assert!(matches!(
        Client::import_state(&count),
        Err(GroupError::Malformed(_))
    ));
    assert_eq!(
        bob.c.load_group(b"no such group").err(),
        Some(GroupError::NotAMember)
    );
    bob.c.delete_group(&id).unwrap();
    assert_eq!(bob.c.load_group(&id).err(), Some(GroupError::NotAMember));
}

#[test]
fn typed_errors_on_bad_arguments() {
    assert!(matches!(
        Client::new(b""),
        Err(GroupError::InvalidArgument(_))
    ));
    assert!(matches!(
        Client::new(&[1u8; 4097]),
        Err(GroupError::InvalidArgument(_))
    ));
    assert_eq!(
        Suite::from_id(0x0003).unwrap_err(),
        GroupError::UnsupportedSuite(3)
    );
    let mut ms = group_of(Suite::Classic, &["alice", "bob"]);
    assert!(matches!(
        ms[0].add(&[]),
        Err(GroupError::InvalidArgument(_))
    ));
    assert_eq!(
        ms[0].remove(&[0]).unwrap_err(),
        GroupError::NotAMember,
        "not oneself"
    );
    assert_eq!(ms[0].remove(&[7]).unwrap_err(), GroupError::NotAMember);
    assert_eq!(ms[0].merge().unwrap_err(), GroupError::NoPendingCommit);
    let other = group_of(Suite::Classic, &["eve"]).pop().unwrap();
    let mut eve = other;
    let foreign = eve.send(b"other group");
    assert_eq!(ms[1].recv(&foreign).unwrap_err(), GroupError::WrongGroup);
    for e in [
        GroupError::CommitPending,
        GroupError::WrongEpoch,
        GroupError::AuthenticationFailed,
    ] {
        assert!(GroupError::CODES.contains(&e.code()));
    }
}

/// A small deterministic PRNG (xorshift) for the simulation.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// ≥ 5 members, ≥ 1,000 operations: adds, removes, updates, messages,
/// reordered application messages within an epoch and dropped copies of
/// messages to members who are then not expected to read them. After every
/// commit every member is in the same epoch; every member that should read a
/// message reads it.
#[test]
fn randomized_simulation_every_member_reads_what_it_should() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let names: Vec<String> = (0..7).map(|i| format!("m{i}")).collect();
    let mut pool: Vec<M> = names.iter().map(|n| member(n)).collect();
    // Members 0..5 start in the group; 5 and 6 wait outside.
    let refs: Vec<&str> = names.iter().take(5).map(String::as_str).collect();
    let mut inside = group_of(Suite::Classic, &refs);
    let mut outside: Vec<M> = pool.drain(5..).collect();
    let mut reads = 0usize;
    let mut ops = 0usize;
    while ops < 1000 {
        ops += 1;
        match rng.below(20) {
            0 if !outside.is_empty() && inside.len() < 7 => {
                let mut new = outside.remove(rng.below(outside.len()));
                let kp = new.c.create_key_package(Suite::Classic, false).unwrap();
                let who = rng.below(inside.len());
                let out = inside[who].add(&[&kp]).unwrap();
                inside[who].merge().unwrap();
                for (i, m) in inside.iter_mut().enumerate() {
                    if i != who {
                        m.recv(&out.commit).unwrap();
                    }
                }
                new.g = Some(new.c.join(out.welcome.as_ref().unwrap()).unwrap());
                inside.push(new);
            }
            1 if inside.len() > 5 => {
                let who = rng.below(inside.len());
                let mut victim = rng.below(inside.len());
                if victim == who {
                    victim = (victim + 1) % inside.len();
                }
                let leaf = inside[victim].g().info().unwrap().own_index;
                let out = inside[who].remove(&[leaf]).unwrap();
                inside[who].merge().unwrap();
                for (i, m) in inside.iter_mut().enumerate() {
                    if i != who {
                        m.recv(&out.commit).unwrap();
                    }
                }
                let mut gone = inside.remove(victim);
                let after = inside[0].send(b"after removal");
                assert!(
                    gone.recv(&after).is_err(),
                    "a removed member reads nothing after its removal"
                );
                for m in inside.iter_mut().skip(1) {
                    assert_eq!(m.read(&after), b"after removal");
                    reads += 1;
                }
                // It may come back later with a fresh client (a new device state).
                outside.push(member(std::str::from_utf8(gone.c.identity()).unwrap()));
            }
            2 | 3 => {
                let who = rng.below(inside.len());
                let out = inside[who].update().unwrap();
                inside[who].merge().unwrap();
                for (i, m) in inside.iter_mut().enumerate() {
                    if i != who {
                        m.recv(&out.commit).unwrap();
                    }
                }
            }
            _ => {
                // A burst of application messages from one sender, delivered to each other member in
                // a random order; one member may miss one copy (a drop) and must still read the rest.
                let who = rng.below(inside.len());
                let n = 1 + rng.below(4);
                let wires: Vec<(Vec<u8>, Vec<u8>)> = (0..n)
                    .map(|k| {
                        let text = format!("op {ops} msg {k}").into_bytes();
                        (inside[who].send(&text), text)
                    })
                    .collect();
                let dropper = rng.below(inside.len());
                for (i, m) in inside.iter_mut().enumerate() {
                    if i == who {
                        continue;
                    }
                    let mut order: Vec<usize> = (0..n).collect();
                    for j in (1..n).rev() {
                        order.swap(j, rng.next() as usize % (j + 1));
                    }
                    if i == dropper && n > 1 {
                        order.pop();
                    }
                    for j in order {
                        assert_eq!(m.read(&wires[j].0), wires[j].1);
                        reads += 1;
                    }
                }
            }
        }
        let epoch = inside[0].epoch();
        assert!(
            inside.iter().all(|m| m.epoch() == epoch),
            "every member in one epoch after op {ops}"
        );
    }
    assert!(reads > 1000, "{reads} reads");
}

// ---------------------------------------------------------------------------
// Certified credentials (crate::group::credential)

/// A keystore-like identity: `Enc(ID)` and its Ed25519 seed.
fn identity() -> (Vec<u8>, Vec<u8>) {
    let ed = veilkit::ed25519::ed25519_generate().unwrap();
    let dsa = veilkit::mldsa::mldsa_generate().unwrap();
    let x = veilkit::x25519::x25519_generate().unwrap();
    let enc =
        veilkit::messaging::verification::encode_identity(&ed.public, Some(&dsa.public), &x.public)
            .unwrap();
    (enc, ed.secret[..32].to_vec())
}

fn certified() -> (M, Vec<u8>) {
    let (enc, seed) = identity();
    (
        M {
            c: Client::new_certified(&enc, &seed).unwrap(),
            g: None,
        },
        enc,
    )
}

#[test]
fn certified_members_carry_their_identity_and_its_certificate() {
    use veilkit::group::credential;
    for suite in SUITES {
        let (mut alice, alice_id) = certified();
        let (mut bob, bob_id) = certified();
        assert!(alice.c.requires_certified());
        assert_eq!(alice.c.identity().len(), credential::CREDENTIAL_LEN);
        alice.g = Some(alice.c.create_group(suite).unwrap());
        let kp = bob.c.create_key_package(suite, false).unwrap();
        let out = alice.add(&[&kp]).unwrap();
        alice.merge().unwrap();
        bob.g = Some(bob.c.join(out.welcome.as_ref().unwrap()).unwrap());
        let m = alice.send(b"certified hello");
        assert_eq!(bob.read(&m), b"certified hello");
        // Every member's credential verifies for its signature key and names its Enc(ID).
        let members = bob.g().members();
        let ids: Vec<Vec<u8>> = members
            .iter()
            .map(|m| {
                credential::check_leaf(&m.identity, &m.signature_key)
                    .unwrap()
                    .to_vec()
            })
            .collect();
        assert_eq!(ids, vec![alice_id.clone(), bob_id.clone()]);
        // Each member's verification code of the other is the 1:1 session's code of the two identities.
        let code_of_bob =
            credential::verification_code(alice.c.identity(), &members[1].identity).unwrap();
        let code_of_alice =
            credential::verification_code(bob.c.identity(), &members[0].identity).unwrap();
        let session = veilkit::messaging::verification::generate_verification_code(
            &alice_id,
            &bob_id,
            b"veilkit-session-v1",
        )
        .unwrap();
        assert_eq!(code_of_bob.numeric, session.numeric);
        assert_eq!(code_of_alice.numeric, session.numeric);
        assert_eq!(code_of_bob.fingerprint, session.fingerprint);
        assert_eq!(
            credential::verification_code(alice.c.identity(), b"plain"),
            Err(GroupError::InvalidCredential)
        );
        // The certificate does not verify for another member's signature key.
        assert_eq!(
            credential::check_leaf(&members[0].identity, &members[1].signature_key),
            Err(GroupError::InvalidCredential)
        );
    }
}

#[test]
fn attack_a_certified_client_refuses_uncertified_and_stolen_credentials() {
    let suite = Suite::XWing;
    let (mut alice, _) = certified();
    let (bob, _) = certified();
    alice.g = Some(alice.c.create_group(suite).unwrap());
    let before = alice.c.export_state();
    // A plain (uncertified) key package.
    let plain = member("mallory")
        .c
        .create_key_package(suite, false)
        .unwrap();
    assert_eq!(
        alice.add(&[&plain]).unwrap_err(),
        GroupError::InvalidCredential
    );
    // Bob's certified credential copied by a client with another MLS signature key.
    let thief = Client::new(bob.c.identity()).unwrap();
    let stolen = thief.create_key_package(suite, false).unwrap();
    assert_eq!(
        alice.add(&[&stolen]).unwrap_err(),
        GroupError::InvalidCredential
    );
    assert_eq!(
        *alice.c.export_state(),
        *before,
        "refused adds change nothing"
    );
    // Bob's genuine key package is accepted.
    let kp = bob.c.create_key_package(suite, false).unwrap();
    assert!(alice.add(&[&kp]).is_ok());
}

#[test]
fn attack_a_certified_client_refuses_a_welcome_with_an_uncertified_member() {
    let suite = Suite::Classic;
    // An uncertified creator (it checks nothing) adds a certified member.
    let mut plain = member("plain");
    plain.g = Some(plain.c.create_group(suite).unwrap());
    let (bob, _) = certified();
    let kp = bob.c.create_key_package(suite, false).unwrap();
    let out = plain.add(&[&kp]).unwrap();
    let before = bob.c.export_state();
    assert_eq!(
        bob.c.join(out.welcome.as_ref().unwrap()).unwrap_err(),
        GroupError::InvalidCredential
    );
    assert_eq!(
        *bob.c.export_state(),
        *before,
        "the key package is not consumed"
    );
}

#[test]
fn certified_credentials_refuse_a_wrong_identity_or_seed() {
    let (enc, seed) = identity();
    let (_, other_seed) = identity();
    assert!(matches!(
        Client::new_certified(&enc, &other_seed),
        Err(GroupError::InvalidArgument(_))
    ));
    assert!(matches!(
        Client::new_certified(&enc[..enc.len() - 1], &seed),
        Err(GroupError::InvalidArgument(_))
    ));
    let mut classical = enc.clone();
    classical[0] = 0;
    assert!(matches!(
        Client::new_certified(&classical, &seed),
        Err(GroupError::InvalidArgument(_))
    ));
}
