//! The `policypal` binary: hands the process over to the CLI module.

#[global_allocator]
static ALLOCATOR: policypal::Allocator = policypal::Allocator;

#[tokio::main]
async fn main() {
    // Started as the text-extraction worker of another PolicyPal process.
    if let Some(code) = policypal::ingest::worker::serve_if_asked() {
        std::process::exit(code);
    }
    let code = policypal::cli::main().await;
    std::process::exit(code);
}
