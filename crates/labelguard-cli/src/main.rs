//! The `labelguard` binary: everything is in the library, shared with the Python package.

fn main() -> std::process::ExitCode {
    labelguard_cli::run(std::env::args_os())
}
