//! The `policypal` binary: hands the process over to the CLI module.

#[tokio::main]
async fn main() {
    let code = policypal::cli::main().await;
    std::process::exit(code);
}
