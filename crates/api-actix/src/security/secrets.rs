//! Recovery tokens from the operating system's random generator.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use domain::hooks::ports::KeyGenerator;
use domain::recovery::SecretGenerator;
use rand::RngCore;

pub struct OsSecretGenerator;

impl SecretGenerator for OsSecretGenerator {
    /// 32 random bytes, URL-safe base64 without padding (43 characters).
    fn recovery_token(&self) -> String {
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        URL_SAFE_NO_PAD.encode(bytes)
    }
}

impl KeyGenerator for OsSecretGenerator {
    /// The key of a new webhook signing secret.
    fn key(&self) -> [u8; 32] {
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_43_url_safe_characters_and_differ() {
        let a = OsSecretGenerator.recovery_token();
        let b = OsSecretGenerator.recovery_token();
        assert_eq!(a.len(), 43);
        assert!(a.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'));
        assert_ne!(a, b);
    }
}
