use std::io::IsTerminal;
use std::process::ExitCode;

use cargo_oxide::cli;
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    let cli = match cli::parse_from(std::env::args_os()) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let default_filter = match cli.verbose {
        0 => "warn",
        1 => "cargo_oxide=info",
        2 => "cargo_oxide=debug",
        _ => "cargo_oxide=trace",
    };
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_filter)),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .without_time()
        .init();

    match cli::execute(&cli) {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
