//! The token signing keys.

use super::CliError;
use crate::security::jwt::generate_key_pair;
use clap::Subcommand;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Writes a new Ed25519 key pair (PEM) to DIR/jwt-ed25519.pem and DIR/jwt-ed25519.pub.pem.
    Generate {
        #[arg(long)]
        out: PathBuf,
        /// Keep an existing pair instead of failing.
        #[arg(long)]
        keep_existing: bool,
    },
}

fn generate_keys(dir: &std::path::Path, keep_existing: bool) -> Result<(), CliError> {
    let private = dir.join("jwt-ed25519.pem");
    let public = dir.join("jwt-ed25519.pub.pem");
    if private.exists() {
        if keep_existing {
            return Ok(());
        }
        return Err(CliError::Failed(format!("{} já existe", private.display())));
    }
    let (private_pem, public_pem) = generate_key_pair().map_err(|e| CliError::Failed(e.to_string()))?;
    std::fs::create_dir_all(dir).map_err(|e| CliError::Failed(format!("{}: {e}", dir.display())))?;
    write_private(&private, &private_pem)?;
    std::fs::write(&public, public_pem).map_err(|e| CliError::Failed(format!("{}: {e}", public.display())))?;
    println!("chaves escritas em {}", dir.display());
    Ok(())
}

fn write_private(path: &std::path::Path, pem: &str) -> Result<(), CliError> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options
        .open(path)
        .map_err(|e| CliError::Failed(format!("{}: {e}", path.display())))?;
    file.write_all(pem.as_bytes())
        .map_err(|e| CliError::Failed(format!("{}: {e}", path.display())))
}

/// Runs one `keys` command.
pub(super) async fn run(command: KeysCommand) -> Result<(), CliError> {
    match command {
        KeysCommand::Generate { out, keep_existing } => generate_keys(&out, keep_existing),
    }
}
