//! `cargo run -p labelguard-fuzz --example parquet_cases -- DIR`: writes every adversarial
//! Parquet case of `labelguard_fuzz::parquet_cases` into DIR (for `bench/parquet_adversarial.sh`).

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: parquet_cases DIR"));
    std::fs::create_dir_all(&dir).expect("create DIR");
    let cases = labelguard_fuzz::parquet_cases::cases();
    for (name, bytes) in &cases {
        std::fs::write(dir.join(format!("{name}.parquet")), bytes).expect("write a case");
    }
    println!("{} cases in {}", cases.len(), dir.display());
}
