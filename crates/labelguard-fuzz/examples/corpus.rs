//! `cargo run --release -p labelguard-fuzz --example corpus -- DIR N [SEED]`: writes, for every
//! fuzz target, its seeds and N mutants of them into `DIR/<target>/` under the target's file
//! extension, for `bench/broken_corpus.py`, which runs the release command line on each file.
//! The mutants stack 1 to 4 mutations, as a campaign's corpus does; SEED makes another corpus.

use labelguard_fuzz::mutate::{mutate, Rng};
use labelguard_fuzz::targets::TARGETS;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), Some(n)) = (
        args.first(),
        args.get(1).and_then(|n| n.parse::<usize>().ok()),
    ) else {
        eprintln!("usage: corpus DIR N [SEED]");
        std::process::exit(2);
    };
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0x5eed);
    for target in TARGETS.iter().filter(|t| t.name != "png_fast") {
        let out = std::path::Path::new(dir).join(target.name);
        std::fs::create_dir_all(&out).expect("create the target's folder");
        let seeds = (target.seeds)();
        let mut rng = Rng::new(seed ^ target.name.len() as u64);
        let write = |name: String, bytes: &[u8]| {
            std::fs::write(out.join(format!("{name}.{}", target.ext)), bytes).expect("write")
        };
        for (i, s) in seeds.iter().enumerate() {
            write(format!("seed{i}"), s);
        }
        for i in 0..n {
            let mut input = seeds[rng.below(seeds.len())].clone();
            for _ in 0..=rng.below(4) {
                let other = &seeds[rng.below(seeds.len())];
                input = mutate(&mut rng, &input, other);
            }
            write(format!("m{i:05}"), &input);
        }
    }
}
