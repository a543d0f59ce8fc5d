//! Webhook signing secrets are stored encrypted (XChaCha20-Poly1305): a copy of the database alone
//! does not let anyone forge deliveries. The subscription's uuid is the associated data, so a
//! sealed secret cannot be moved to another row.

use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use domain::hooks::SigningSecret;
use domain::store::StoreError;
use uuid::Uuid;

const NONCE_LEN: usize = 24;

pub struct SecretSealer {
    cipher: XChaCha20Poly1305,
}

impl SecretSealer {
    pub fn new(key: [u8; 32]) -> Self {
        Self {
            cipher: XChaCha20Poly1305::new(&key.into()),
        }
    }

    /// A random nonce, then the ciphertext.
    pub fn seal(&self, uuid: Uuid, secret: &SigningSecret) -> Result<Vec<u8>, StoreError> {
        let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
        let sealed = self
            .cipher
            .encrypt(
                &nonce,
                Payload {
                    msg: secret.expose().as_bytes(),
                    aad: uuid.as_bytes(),
                },
            )
            .map_err(|_| StoreError::Unexpected("falha ao cifrar o segredo do webhook".into()))?;
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        Ok(out)
    }

    pub fn open(&self, uuid: Uuid, sealed: &[u8]) -> Result<SigningSecret, StoreError> {
        let refuse =
            || StoreError::Unexpected("segredo do webhook ilegível: a chave HOOKS_ENCRYPTION_KEY mudou?".into());
        if sealed.len() < NONCE_LEN {
            return Err(refuse());
        }
        let (nonce, ciphertext) = sealed.split_at(NONCE_LEN);
        let plain = self
            .cipher
            .decrypt(
                XNonce::from_slice(nonce),
                Payload {
                    msg: ciphertext,
                    aad: uuid.as_bytes(),
                },
            )
            .map_err(|_| refuse())?;
        let text = String::from_utf8(plain).map_err(|_| refuse())?;
        SigningSecret::parse(&text).ok_or_else(refuse)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_secrets_open_only_with_their_key_and_row() {
        let sealer = SecretSealer::new([3; 32]);
        let secret = SigningSecret::from_key([8; 32]);
        let uuid = Uuid::new_v4();
        let sealed = sealer.seal(uuid, &secret).unwrap();
        assert!(!sealed.windows(6).any(|w| w == b"whsec_"), "stored in clear");
        assert_eq!(sealer.open(uuid, &sealed).unwrap(), secret);
        assert_ne!(sealer.seal(uuid, &secret).unwrap(), sealed, "nonce reused");
        assert!(sealer.open(Uuid::new_v4(), &sealed).is_err());
        assert!(SecretSealer::new([4; 32]).open(uuid, &sealed).is_err());
        assert!(sealer.open(uuid, &sealed[..10]).is_err());
    }
}
