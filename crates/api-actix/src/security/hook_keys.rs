//! The keys that encrypt webhook signing secrets at rest, as the configuration and the environment
//! give them (decision 76).

use crate::config::Config;
use crate::deployment::Environment;
use adapters_postgres::SealingKeys;

/// Why the webhook secrets' keys could not be had: the message names the variable or the file.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct HookKeyError(pub String);

/// The keys of webhook signing secrets at rest: `HOOKS_ENCRYPTION_KEY` seals, and
/// `HOOKS_PREVIOUS_ENCRYPTION_KEYS` still open what they sealed. In development, without a key, one
/// is generated into a file beside the token signing key (like it), and the key the first versions
/// derived from the token signing key stays readable, so that a development database keeps working.
pub fn hook_keys(config: &Config) -> Result<SealingKeys, HookKeyError> {
    let mut previous = config.hooks.previous_encryption_keys.clone();
    let current = match (config.hooks.encryption_key, config.server.environment) {
        (Some(key), _) => key,
        (None, Environment::Production) => {
            return Err(HookKeyError("HOOKS_ENCRYPTION_KEY: obrigatória em produção".into()));
        }
        (None, Environment::Development) => {
            previous.extend(legacy_hooks_key(config));
            development_hooks_key(config)?
        }
    };
    Ok(SealingKeys { current, previous })
}

/// The key the first versions derived from the token signing key (never used to seal any more).
pub fn legacy_hooks_key(config: &Config) -> Option<[u8; 32]> {
    let pem = std::fs::read(config.tokens.jwt.private_key_file.as_ref()?).ok()?;
    use sha2::Digest;
    Some(
        sha2::Sha256::new()
            .chain_update(b"sales-api/hooks-secret-key/v1\0")
            .chain_update(&pem)
            .finalize()
            .into(),
    )
}

/// Development only: the key in `hooks-encryption.key` (base64) beside the token signing key, or
/// under `target/dev-keys`, made on first use. Two processes starting together agree on one: the
/// file appears whole or not at all (written aside, then linked into place).
fn development_hooks_key(config: &Config) -> Result<[u8; 32], HookKeyError> {
    use base64::Engine;
    let dir = config
        .tokens
        .jwt
        .private_key_file
        .as_ref()
        .and_then(|f| f.parent())
        .filter(|d| !d.as_os_str().is_empty())
        .map_or_else(
            || std::path::PathBuf::from("target/dev-keys"),
            std::path::Path::to_path_buf,
        );
    let path = dir.join("hooks-encryption.key");
    let failed = |e: std::io::Error| HookKeyError(format!("HOOKS_ENCRYPTION_KEY: {}: {e}", path.display()));
    if !path.exists() {
        use rand::RngCore;
        let mut key = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut key);
        std::fs::create_dir_all(&dir).map_err(failed)?;
        let aside = dir.join(format!(
            "hooks-encryption.key.{}.{}",
            std::process::id(),
            uuid::Uuid::new_v4()
        ));
        write_private(&aside, &base64::engine::general_purpose::STANDARD.encode(key)).map_err(failed)?;
        let linked = std::fs::hard_link(&aside, &path);
        let _ = std::fs::remove_file(&aside);
        match linked {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(failed(e)),
        }
    }
    let text = std::fs::read_to_string(&path).map_err(failed)?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .map_err(|_| HookKeyError(format!("{}: não é base64", path.display())))?;
    <[u8; 32]>::try_from(bytes.as_slice()).map_err(|_| HookKeyError(format!("{}: deve ter 32 bytes", path.display())))
}

/// A file only its owner can read.
fn write_private(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)?.write_all(text.as_bytes())
}
