//! Writes a synthetic training log for the `diagnose` benchmark (bench/diagnose.sh).
//!
//! `cargo run --release -p labelguard-diagnose --example synth_log -- OUT MB [dense]`
//!
//! The default log looks like a long run that then crashes: tqdm progress updates (`\r`),
//! logging lines with metrics, warnings, a config dump every few thousand lines, and at the end
//! 4,096 assertion lines from GPU threads, an asynchronous traceback and the 2.x error text.
//! `dense` writes a log made only of assertion lines (the parser's slowest path: every line is
//! looked at closely).

use std::io::{BufWriter, Write};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: synth_log OUT MB [dense]");
        std::process::exit(2);
    }
    let target = args[2].parse::<u64>().expect("MB") << 20;
    let dense = args.get(3).is_some_and(|a| a == "dense");
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(&args[1])?);
    let mut written = 0u64;
    let mut n = 0u64;
    // A fixed-seed generator keeps the log the same from run to run.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rand = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    while written < target {
        let line = if dense {
            format!("../aten/src/ATen/native/cuda/NLLLoss2d.cu:104: nll_loss2d_forward_kernel: block: [{},0,0], thread: [{},0,0] Assertion `t >= 0 && t < n_classes` failed.\n", n / 512, n % 512)
        } else {
            match n % 1000 {
                0 => "/home/u/.venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py:558: UserWarning: This DataLoader will create 16 worker processes in total. Our suggested max number of worker in current system is 8.\n  warnings.warn(_create_warning_msg(\n".to_string(),
                1 => "config: model=deeplabv3plus_r101 batch_size=8 crop=768x768 lr=0.01 num_classes=19 ignore_index=255 amp=True\n".to_string(),
                k if k % 10 == 0 => {
                    let mut s = String::new();
                    for p in (0..=100).step_by(20) {
                        s += &format!("\rEpoch {}: {p:3}%|{:<10}| {}/{} [02:{:02}<01:{:02}, {:.2}it/s, loss={:.4}, lr=0.0{}]", n / 10_000, "█".repeat(p / 10), p * 3, 300, p % 60, (100 - p) % 60, 4.0 + (rand() % 100) as f64 / 100.0, 0.3 + (rand() % 1000) as f64 / 10_000.0, rand() % 10);
                    }
                    s + "\n"
                }
                _ => format!(
                    "2025-03-01 12:{:02}:{:02},{:03} - train - INFO - epoch {} iter {}/2975 loss {:.4} decode.loss_ce {:.4} decode.acc_seg {:.2} time {:.3} data_time {:.3} memory 9854\n",
                    (n / 60) % 60, n % 60, rand() % 1000, n / 10_000, n % 2975,
                    (rand() % 10_000) as f64 / 5000.0, (rand() % 10_000) as f64 / 5000.0,
                    (rand() % 10_000) as f64 / 100.0, (rand() % 1000) as f64 / 1000.0, (rand() % 100) as f64 / 1000.0
                ),
            }
        };
        out.write_all(line.as_bytes())?;
        written += line.len() as u64;
        n += 1;
    }
    if !dense {
        for i in 0..4096u32 {
            writeln!(out, "../aten/src/ATen/native/cuda/NLLLoss2d.cu:104: nll_loss2d_forward_kernel: block: [{},0,0], thread: [{},0,0] Assertion `t >= 0 && t < n_classes` failed.", i / 256, i % 256)?;
        }
        out.write_all(b"Traceback (most recent call last):\n  File \"/workspace/seg/tools/train.py\", line 171, in main\n    print(f\"iter {it} loss {loss.item():.4f}\")\nRuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")?;
    }
    out.flush()
}
