//! Secrets and personal answers kept by the service are stored encrypted: webhook signing
//! secrets and the answers kept for `Idempotency-Key` retries (decision 127).
//!
//! Webhook signing secrets are stored encrypted (XChaCha20-Poly1305): a copy of the database alone
//! does not let anyone forge deliveries. The subscription's uuid is the associated data, so a
//! sealed secret cannot be moved to another row.
//!
//! A sealed secret names the key that sealed it (`2`, then the key's 8-byte id, the nonce and the
//! ciphertext), so that keys can rotate: the current key seals, previous keys still open what they
//! sealed, and [`SecretSealer::reseal`] moves a secret under the current key. Secrets sealed before
//! keys had ids (the nonce first) are opened by trying every known key.

use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use domain::hooks::SigningSecret;
use domain::store::StoreError;
use sha2::{Digest, Sha256};
use uuid::Uuid;

const NONCE_LEN: usize = 24;
const FORMAT: u8 = 2;
const KEY_ID_LEN: usize = 8;

/// The id a key is named by in what it seals: the first bytes of a hash of the key, so the key
/// itself never shows.
pub type KeyId = [u8; KEY_ID_LEN];

pub fn key_id(key: &[u8; 32]) -> KeyId {
    let digest = Sha256::new()
        .chain_update(b"sales-api/hooks-key-id/v1\0")
        .chain_update(key)
        .finalize();
    let mut id = [0u8; KEY_ID_LEN];
    id.copy_from_slice(&digest[..KEY_ID_LEN]);
    id
}

struct Key {
    id: KeyId,
    cipher: XChaCha20Poly1305,
    /// Never the sealing key itself: a key derived from it for keyed digests.
    tag_key: [u8; 32],
}

impl Key {
    fn new(key: &[u8; 32]) -> Self {
        let tag_key = Sha256::new()
            .chain_update(b"sales-api/keyed-digest/v1\0")
            .chain_update(key)
            .finalize()
            .into();
        Self {
            id: key_id(key),
            cipher: XChaCha20Poly1305::new(key.into()),
            tag_key,
        }
    }

    fn open(&self, aad: &[u8], nonce_and_ciphertext: &[u8]) -> Option<Vec<u8>> {
        if nonce_and_ciphertext.len() < NONCE_LEN {
            return None;
        }
        let (nonce, ciphertext) = nonce_and_ciphertext.split_at(NONCE_LEN);
        self.cipher
            .decrypt(XNonce::from_slice(nonce), Payload { msg: ciphertext, aad })
            .ok()
    }

    /// A keyed digest (HMAC-SHA-256 under a key derived from this one): equal inputs give equal
    /// tags, and without the key a tag tells nothing, not even of an input as guessable as a CPF.
    fn tag(&self, purpose: &str, data: &[u8]) -> [u8; 32] {
        use hmac::{Hmac, Mac};
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.tag_key).unwrap_or_else(|_| unreachable!());
        mac.update(purpose.as_bytes());
        mac.update(&[0]);
        mac.update(data);
        mac.finalize().into_bytes().into()
    }
}

pub struct SecretSealer {
    current: Key,
    previous: Vec<Key>,
}

impl SecretSealer {
    /// Seals with `current`; opens with it and with every one of `previous`.
    pub fn new(current: [u8; 32], previous: &[[u8; 32]]) -> Self {
        Self {
            current: Key::new(&current),
            previous: previous.iter().map(Key::new).collect(),
        }
    }

    pub fn current_key_id(&self) -> KeyId {
        self.current.id
    }

    /// The format byte, the current key's id, a random nonce, then the ciphertext.
    pub fn seal(&self, uuid: Uuid, secret: &SigningSecret) -> Result<Vec<u8>, StoreError> {
        self.seal_bytes(uuid.as_bytes(), secret.expose().as_bytes())
    }

    /// Any bytes sealed as a secret is, bound to `aad` (what the sealed value belongs to: it
    /// opens only with the same `aad`).
    pub fn seal_bytes(&self, aad: &[u8], plain: &[u8]) -> Result<Vec<u8>, StoreError> {
        let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
        let sealed = self
            .current
            .cipher
            .encrypt(&nonce, Payload { msg: plain, aad })
            .map_err(|_| StoreError::Unexpected("falha ao cifrar um valor guardado".into()))?;
        let mut out = Vec::with_capacity(1 + KEY_ID_LEN + NONCE_LEN + sealed.len());
        out.push(FORMAT);
        out.extend_from_slice(&self.current.id);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&sealed);
        Ok(out)
    }

    /// The id of the key that sealed this, when it names one.
    pub fn sealed_with(sealed: &[u8]) -> Option<KeyId> {
        match sealed {
            [FORMAT, rest @ ..] if rest.len() > KEY_ID_LEN + NONCE_LEN => {
                let mut id = [0u8; KEY_ID_LEN];
                id.copy_from_slice(&rest[..KEY_ID_LEN]);
                Some(id)
            }
            _ => None,
        }
    }

    fn keys(&self) -> impl Iterator<Item = &Key> {
        std::iter::once(&self.current).chain(&self.previous)
    }

    /// Opens what [`Self::seal_bytes`] sealed with this `aad`, under any known key.
    pub fn open_bytes(&self, aad: &[u8], sealed: &[u8]) -> Option<Vec<u8>> {
        let named = Self::sealed_with(sealed)
            .and_then(|id| self.keys().find(|k| k.id == id))
            .and_then(|key| key.open(aad, &sealed[1 + KEY_ID_LEN..]));
        // Sealed before keys had ids (or, once in 2^72, an old secret that looks like a new one):
        // every known key is tried; the tag tells the right one.
        named.or_else(|| self.keys().find_map(|k| k.open(aad, sealed)))
    }

    /// The value sealed again under the current key, or `None` when it already is.
    pub fn reseal_bytes(&self, aad: &[u8], sealed: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        if Self::sealed_with(sealed) == Some(self.current.id)
            && self.current.open(aad, &sealed[1 + KEY_ID_LEN..]).is_some()
        {
            return Ok(None);
        }
        let plain = self
            .open_bytes(aad, sealed)
            .ok_or_else(|| StoreError::Unexpected("valor guardado ilegível com as chaves configuradas".into()))?;
        self.seal_bytes(aad, &plain).map(Some)
    }

    /// The keyed digest of `data` for `purpose` under the current key (what is stored).
    pub fn tag(&self, purpose: &str, data: &[u8]) -> [u8; 32] {
        self.current.tag(purpose, data)
    }

    /// The digests under every known key, current first (what a stored digest may be after a
    /// rotation).
    pub fn tags(&self, purpose: &str, data: &[u8]) -> Vec<[u8; 32]> {
        self.keys().map(|k| k.tag(purpose, data)).collect()
    }

    pub fn open(&self, uuid: Uuid, sealed: &[u8]) -> Result<SigningSecret, StoreError> {
        let plain = self
            .open_bytes(uuid.as_bytes(), sealed)
            .ok_or_else(|| match Self::sealed_with(sealed) {
                Some(id) => StoreError::Unexpected(format!(
                    "segredo do webhook selado pela chave {}, que não está em HOOKS_ENCRYPTION_KEY nem em \
                     HOOKS_PREVIOUS_ENCRYPTION_KEYS",
                    hex::encode(id)
                )),
                None => StoreError::Unexpected(
                    "segredo do webhook ilegível com as chaves configuradas (HOOKS_ENCRYPTION_KEY, \
                     HOOKS_PREVIOUS_ENCRYPTION_KEYS)"
                        .into(),
                ),
            })?;
        let text = String::from_utf8(plain)
            .map_err(|_| StoreError::Unexpected("segredo do webhook ilegível: não é texto".into()))?;
        SigningSecret::parse(&text).ok_or_else(|| StoreError::Unexpected("segredo do webhook ilegível".into()))
    }

    /// The secret sealed under the current key, or `None` when it already is.
    pub fn reseal(&self, uuid: Uuid, sealed: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        if Self::sealed_with(sealed) == Some(self.current.id)
            && self.current.open(uuid.as_bytes(), &sealed[1 + KEY_ID_LEN..]).is_some()
        {
            return Ok(None);
        }
        let secret = self.open(uuid, sealed)?;
        self.seal(uuid, &secret).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_secrets_open_only_with_their_key_and_row() {
        let sealer = SecretSealer::new([3; 32], &[]);
        let secret = SigningSecret::from_key([8; 32]);
        let uuid = Uuid::new_v4();
        let sealed = sealer.seal(uuid, &secret).unwrap();
        assert!(!sealed.windows(6).any(|w| w == b"whsec_"), "stored in clear");
        assert_eq!(sealer.open(uuid, &sealed).unwrap(), secret);
        assert_ne!(sealer.seal(uuid, &secret).unwrap(), sealed, "nonce reused");
        assert!(sealer.open(Uuid::new_v4(), &sealed).is_err());
        assert!(SecretSealer::new([4; 32], &[]).open(uuid, &sealed).is_err());
        assert!(sealer.open(uuid, &sealed[..10]).is_err());
    }

    #[test]
    fn a_sealed_secret_names_its_key_and_a_previous_key_still_opens_it() {
        let old = SecretSealer::new([1; 32], &[]);
        let secret = SigningSecret::from_key([8; 32]);
        let uuid = Uuid::new_v4();
        let sealed = old.seal(uuid, &secret).unwrap();
        assert_eq!(SecretSealer::sealed_with(&sealed), Some(key_id(&[1; 32])));

        let rotated = SecretSealer::new([2; 32], &[[1; 32]]);
        assert_eq!(rotated.open(uuid, &sealed).unwrap(), secret);
        let resealed = rotated
            .reseal(uuid, &sealed)
            .unwrap()
            .expect("moved to the current key");
        assert_eq!(SecretSealer::sealed_with(&resealed), Some(key_id(&[2; 32])));
        assert_eq!(rotated.reseal(uuid, &resealed).unwrap(), None, "already current");
        assert_eq!(SecretSealer::new([2; 32], &[]).open(uuid, &resealed).unwrap(), secret);

        let err = SecretSealer::new([2; 32], &[])
            .open(uuid, &sealed)
            .unwrap_err()
            .to_string();
        assert!(err.contains(&hex::encode(key_id(&[1; 32]))), "{err}");
        assert!(err.contains("HOOKS_PREVIOUS_ENCRYPTION_KEYS"), "{err}");
    }

    #[test]
    fn a_secret_sealed_before_keys_had_ids_is_opened_and_resealed() {
        // The first format: a random nonce, then the ciphertext.
        let key = [7; 32];
        let uuid = Uuid::new_v4();
        let secret = SigningSecret::from_key([9; 32]);
        let cipher = XChaCha20Poly1305::new(&key.into());
        let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
        let mut legacy = nonce.to_vec();
        legacy.extend(
            cipher
                .encrypt(
                    &nonce,
                    Payload {
                        msg: secret.expose().as_bytes(),
                        aad: uuid.as_bytes(),
                    },
                )
                .unwrap(),
        );
        let sealer = SecretSealer::new([5; 32], &[key]);
        assert_eq!(sealer.open(uuid, &legacy).unwrap(), secret);
        let resealed = sealer.reseal(uuid, &legacy).unwrap().unwrap();
        assert_eq!(SecretSealer::sealed_with(&resealed), Some(key_id(&[5; 32])));
    }
}

#[cfg(test)]
mod digest_tests {
    use super::*;

    #[test]
    fn a_digest_under_a_previous_key_is_among_the_tags_after_a_rotation() {
        let old = SecretSealer::new([6; 32], &[]);
        let rotated = SecretSealer::new([7; 32], &[[6; 32]]);
        let tag = old.tag("p", b"data");
        assert_eq!(rotated.tags("p", b"data"), vec![rotated.tag("p", b"data"), tag]);
        assert_ne!(rotated.tag("p", b"data"), tag);
        assert_ne!(old.tag("q", b"data"), tag, "each purpose its own digests");
    }
}
