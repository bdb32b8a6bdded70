//! Logging set-up shared by the CLI and the desktop app: a daily rolling file in the data
//! directory's `logs/`, filtered by `RUST_LOG`.
//!
//! Owns: the subscriber and its defaults. Must not: log document text, prompts or secrets at
//! info level (callers keep to that; this module only routes).

use crate::config::DataDir;

/// Installs the global subscriber; keep the guard alive for as long as the program runs so
/// buffered lines reach the file. `None` when the log directory cannot be written or a
/// subscriber is already installed (logging then stays off rather than failing the program).
pub fn init(dir: &DataDir) -> Option<tracing_appender::non_blocking::WorkerGuard> {
    use tracing_subscriber::EnvFilter;
    let appender = tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix("policypal")
        .filename_suffix("log")
        .max_log_files(14)
        .build(dir.logs_dir())
        .ok()?;
    let (writer, guard) = tracing_appender::non_blocking(appender);
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,lance=warn,lancedb=warn,datafusion=warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(false)
        .try_init()
        .ok()?;
    Some(guard)
}
