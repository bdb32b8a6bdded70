//! The `policypal` binary: hands the process over to the CLI module.

#[global_allocator]
static ALLOCATOR: policypal::Allocator = policypal::Allocator;

#[tokio::main]
async fn main() {
    let code = policypal::cli::main().await;
    std::process::exit(code);
}
