//! Native criterion benchmarks for the primitives that `npm run bench` times in
//! Chromium (wasm), so the wasm/native ratio can be read off both reports.
//!
//! `cargo bench -p veilkit --bench primitives` (add `-- --quick` for a short run).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;
use veilkit::kdf::Argon2Params;
use veilkit::{aead, ed25519, hash, hpke, kdf, mldsa, mlkem, x25519, xwing};

fn kems(c: &mut Criterion) {
    let mut g = c.benchmark_group("kem");
    let kp = mlkem::mlkem_from_seed(&[7u8; 64]).unwrap();
    let (ct, _) = mlkem::mlkem_encapsulate(&kp.encapsulation_key).unwrap();
    g.bench_function("ml-kem-768 keygen", |b| {
        b.iter(|| mlkem::mlkem_from_seed(black_box(&[7u8; 64])).unwrap())
    });
    g.bench_function("ml-kem-768 encaps", |b| {
        b.iter(|| mlkem::mlkem_encapsulate(black_box(&kp.encapsulation_key)).unwrap())
    });
    g.bench_function("ml-kem-768 decaps", |b| {
        b.iter(|| {
            mlkem::mlkem_decapsulate(black_box(&kp.decapsulation_key), black_box(&ct)).unwrap()
        });
    });
    let xk = xwing::xwing_from_seed(&[9u8; 32]).unwrap();
    let (xct, _) = xwing::xwing_encapsulate(&xk.public).unwrap();
    g.bench_function("x-wing encaps", |b| {
        b.iter(|| xwing::xwing_encapsulate(black_box(&xk.public)).unwrap())
    });
    g.bench_function("x-wing decaps", |b| {
        b.iter(|| xwing::xwing_decapsulate(black_box(&xk.secret[..]), black_box(&xct)).unwrap())
    });
    g.finish();
}

fn signatures(c: &mut Criterion) {
    let mut g = c.benchmark_group("sig");
    let msg = [0x5au8; 1024];
    let dk = mldsa::mldsa_from_seed(&[3u8; 32]).unwrap();
    let sig = mldsa::mldsa_sign(&dk.seed[..], &msg, &[], true).unwrap();
    g.bench_function("ml-dsa-65 sign", |b| {
        b.iter(|| mldsa::mldsa_sign(black_box(&dk.seed[..]), black_box(&msg), &[], false).unwrap())
    });
    g.bench_function("ml-dsa-65 verify", |b| {
        b.iter(|| {
            mldsa::mldsa_verify(black_box(&dk.public), black_box(&msg), &[], black_box(&sig))
                .unwrap()
        })
    });
    let ek = ed25519::ed25519_from_seed(&[5u8; 32]).unwrap();
    let esig = ed25519::ed25519_sign(&ek.secret[..], &msg).unwrap();
    g.bench_function("ed25519 sign", |b| {
        b.iter(|| ed25519::ed25519_sign(black_box(&ek.secret[..]), black_box(&msg)).unwrap())
    });
    g.bench_function("ed25519 verify", |b| {
        b.iter(|| {
            ed25519::ed25519_verify(black_box(&ek.public), black_box(&msg), black_box(&esig))
                .unwrap()
        })
    });
    let a = x25519::x25519_generate().unwrap();
    let bpk = x25519::x25519_generate().unwrap().public;
    g.bench_function("x25519 dh", |b| {
        b.iter(|| x25519::x25519_dh(black_box(&a.secret[..]), black_box(&bpk)).unwrap())
    });
    g.finish();
}

fn kdfs(c: &mut Criterion) {
    let mut g = c.benchmark_group("kdf");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    g.bench_function("hkdf-sha256 32B", |b| {
        b.iter(|| kdf::hkdf_sha256(black_box(&[1u8; 32]), b"salt", b"info", 32).unwrap())
    });
    g.bench_function("pbkdf2-sha256 600k", |b| {
        b.iter(|| kdf::pbkdf2_sha256(black_box(b"password"), b"saltsalt", 600_000, 32).unwrap())
    });
    for p in [1u32, 4] {
        let params = Argon2Params {
            memory_kib: 65_536,
            iterations: 3,
            parallelism: p,
            output_len: 32,
        };
        g.bench_with_input(
            BenchmarkId::new("argon2id m=64MiB t=3", format!("p={p}")),
            &params,
            |b, params| {
                b.iter(|| {
                    kdf::argon2id(black_box(b"password"), b"saltsaltsalt", &[], &[], params)
                        .unwrap()
                });
            },
        );
    }
    g.finish();
}

fn symmetric(c: &mut Criterion) {
    let mut g = c.benchmark_group("symmetric");
    let data = vec![0x42u8; 1 << 20];
    g.throughput(Throughput::Bytes(data.len() as u64));
    let key = [8u8; 32];
    g.bench_function("aes-256-gcm encrypt 1MiB", |b| {
        b.iter(|| aead::aes_gcm_encrypt(black_box(&key), black_box(&data), &[]).unwrap())
    });
    g.bench_function("sha-256 1MiB", |b| {
        b.iter(|| hash::sha256(black_box(&data)))
    });
    g.bench_function("blake3 1MiB", |b| {
        b.iter(|| hash::blake3_hash(black_box(&data), 32).unwrap())
    });
    g.finish();
}

/// Sealed box (HPKE base mode, X-Wing, HKDF-SHA256, AES-256-GCM): seal and open of 256 B and
/// 64 KiB, beside the browser figures of `node bench/run.mjs --group hpke`.
fn sealed_box(c: &mut Criterion) {
    let mut g = c.benchmark_group("hpke");
    let kp = xwing::xwing_from_seed(&[9u8; 32]).unwrap();
    for size in [256usize, 65536] {
        let pt = vec![0x5au8; size];
        let tag = if size >= 1024 {
            format!("{}k", size / 1024)
        } else {
            size.to_string()
        };
        let sealed = hpke::seal(&kp.public, b"bench", b"", &pt).unwrap();
        g.throughput(Throughput::Bytes(size as u64));
        g.bench_function(format!("seal {tag}"), |b| {
            b.iter(|| hpke::seal(black_box(&kp.public), b"bench", b"", black_box(&pt)).unwrap())
        });
        g.bench_function(format!("open {tag}"), |b| {
            b.iter(|| {
                hpke::open(black_box(&kp.secret[..]), black_box(&sealed), b"bench", b"").unwrap()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, kems, signatures, kdfs, symmetric, sealed_box);
criterion_main!(benches);
