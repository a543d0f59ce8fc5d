//! Access and refresh tokens: EdDSA (Ed25519) JWTs with a `kid`, the implementation of the domain's
//! `TokenService` port. The current key signs; previous public keys keep verifying after a
//! rotation; all of them are published at `/.well-known/jwks.json`.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Duration, Utc};
use domain::auth::model::{Principal, RefreshClaims, RefreshTokenRecord, TokenPair};
use domain::auth::ports::{TokenError, TokenService};
use domain::values::Application;
use ed25519_dalek::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePrivateKey};
use ed25519_dalek::{SigningKey, VerifyingKey};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::Path;
use uuid::Uuid;

pub const ACCESS_TTL: Duration = Duration::hours(1);
pub const REFRESH_TTL: Duration = Duration::hours(2);
const LEEWAY_SECS: u64 = 30;
/// Access tokens already verified, by their exact text. An Ed25519 verification is a quarter of
/// the CPU a short request costs; a client sends the same token for up to an hour. Only tokens
/// that verified get in, so the cache cannot be filled from outside.
const VERIFIED_ACCESS_TOKENS: usize = 10_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum TokenType {
    Access,
    Refresh,
}

#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    iss: String,
    aud: String,
    sub: String,
    /// The user's e-mail, recorded as who changed what.
    email: String,
    app: String,
    iat: i64,
    nbf: i64,
    exp: i64,
    jti: String,
    /// The session (one sign-in) the token belongs to: ending it ends the token.
    sid: String,
    typ: TokenType,
}

#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("não foi possível ler a chave {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("chave inválida em {path}: {reason}")]
    Parse { path: String, reason: String },
}

/// A public key as published in the JWKS.
#[derive(Debug, Clone, Serialize)]
pub struct Jwk {
    pub kty: &'static str,
    pub crv: &'static str,
    pub alg: &'static str,
    #[serde(rename = "use")]
    pub use_: &'static str,
    pub kid: String,
    pub x: String,
}

pub struct JwtTokenService {
    issuer: String,
    audience: String,
    signing_kid: String,
    encoding_key: EncodingKey,
    decoding_keys: HashMap<String, DecodingKey>,
    jwks: Vec<Jwk>,
    /// Token text → its principal and expiry (Unix seconds).
    verified_access: quick_cache::sync::Cache<String, (Principal, i64)>,
}

/// RFC 7638 thumbprint of an Ed25519 public key: a stable `kid` that needs no configuration.
fn thumbprint(x: &str) -> String {
    let canonical = format!(r#"{{"crv":"Ed25519","kty":"OKP","x":"{x}"}}"#);
    URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
}

fn jwk_of(key: &VerifyingKey) -> Jwk {
    let x = URL_SAFE_NO_PAD.encode(key.as_bytes());
    Jwk {
        kty: "OKP",
        crv: "Ed25519",
        alg: "EdDSA",
        use_: "sig",
        kid: thumbprint(&x),
        x,
    }
}

impl JwtTokenService {
    /// `signing` signs new tokens; `previous` only verify (keys retired by a rotation).
    pub fn new(
        signing: &SigningKey,
        previous: &[VerifyingKey],
        issuer: &str,
        audience: &str,
    ) -> Result<Self, KeyError> {
        let der = signing.to_pkcs8_der().map_err(|e| KeyError::Parse {
            path: "chave de assinatura".into(),
            reason: e.to_string(),
        })?;
        let current = jwk_of(&signing.verifying_key());
        let mut decoding_keys = HashMap::new();
        let mut jwks = Vec::new();
        for key in std::iter::once(signing.verifying_key()).chain(previous.iter().copied()) {
            let jwk = jwk_of(&key);
            decoding_keys.insert(jwk.kid.clone(), DecodingKey::from_ed_der(key.as_bytes()));
            if !jwks.iter().any(|j: &Jwk| j.kid == jwk.kid) {
                jwks.push(jwk);
            }
        }
        Ok(Self {
            issuer: issuer.to_owned(),
            audience: audience.to_owned(),
            signing_kid: current.kid,
            encoding_key: EncodingKey::from_ed_der(der.as_bytes()),
            decoding_keys,
            jwks,
            verified_access: quick_cache::sync::Cache::new(VERIFIED_ACCESS_TOKENS),
        })
    }

    /// Reads the signing key (PKCS#8 PEM) and the previous public keys (SPKI PEM) from files.
    pub fn from_files(
        private_key: &Path,
        previous: &[std::path::PathBuf],
        issuer: &str,
        audience: &str,
    ) -> Result<Self, KeyError> {
        let signing = SigningKey::from_pkcs8_pem(&read(private_key)?).map_err(|e| KeyError::Parse {
            path: private_key.display().to_string(),
            reason: e.to_string(),
        })?;
        let previous = previous
            .iter()
            .map(|path| {
                VerifyingKey::from_public_key_pem(&read(path)?).map_err(|e| KeyError::Parse {
                    path: path.display().to_string(),
                    reason: e.to_string(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Self::new(&signing, &previous, issuer, audience)
    }

    pub fn jwks(&self) -> &[Jwk] {
        &self.jwks
    }

    fn sign(
        &self,
        principal: &Principal,
        typ: TokenType,
        jti: Uuid,
        now: DateTime<Utc>,
        ttl: Duration,
    ) -> Result<String, TokenError> {
        let claims = Claims {
            iss: self.issuer.clone(),
            aud: self.audience.clone(),
            sub: principal.user_id.to_string(),
            email: principal.email.clone(),
            app: principal.application.as_str().to_owned(),
            iat: now.timestamp(),
            nbf: now.timestamp(),
            exp: (now + ttl).timestamp(),
            jti: jti.to_string(),
            sid: principal.session_id.to_string(),
            typ,
        };
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = Some(self.signing_kid.clone());
        jsonwebtoken::encode(&header, &claims, &self.encoding_key).map_err(|e| TokenError::Signing(e.to_string()))
    }

    /// The principal of an access token verified before, while it has not expired at `now`
    /// (with the same leeway as a full verification).
    fn already_verified(&self, token: &str, now: DateTime<Utc>) -> Option<Principal> {
        let (principal, expires_at) = self.verified_access.get(token)?;
        (now.timestamp() <= expires_at.saturating_add_unsigned(LEEWAY_SECS)).then_some(principal)
    }

    /// Verifies the signature and the claims; returns the principal, the `jti` and the expiry.
    fn verify(&self, token: &str, expected: TokenType) -> Result<(Principal, Uuid, i64), TokenError> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| TokenError::Invalid)?;
        if header.alg != Algorithm::EdDSA {
            return Err(TokenError::Invalid);
        }
        let key = header
            .kid
            .as_ref()
            .and_then(|kid| self.decoding_keys.get(kid))
            .ok_or(TokenError::Invalid)?;
        let mut validation = Validation::new(Algorithm::EdDSA);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub", "nbf"]);
        validation.validate_nbf = true;
        validation.leeway = LEEWAY_SECS;
        let data = jsonwebtoken::decode::<Claims>(token, key, &validation).map_err(|_| TokenError::Invalid)?;
        let claims = data.claims;
        if claims.typ != expected {
            return Err(TokenError::Invalid);
        }
        let user_id = claims.sub.parse().map_err(|_| TokenError::Invalid)?;
        let application = Application::parse(&claims.app).map_err(|_| TokenError::Invalid)?;
        let jti = Uuid::parse_str(&claims.jti).map_err(|_| TokenError::Invalid)?;
        let session_id = Uuid::parse_str(&claims.sid).map_err(|_| TokenError::Invalid)?;
        Ok((
            Principal {
                user_id,
                email: claims.email,
                application,
                session_id,
            },
            jti,
            claims.exp,
        ))
    }
}

fn read(path: &Path) -> Result<String, KeyError> {
    std::fs::read_to_string(path).map_err(|e| KeyError::Read {
        path: path.display().to_string(),
        reason: e.to_string(),
    })
}

impl TokenService for JwtTokenService {
    fn issue(&self, principal: Principal, now: DateTime<Utc>) -> Result<TokenPair, TokenError> {
        let refresh_jti = Uuid::new_v4();
        Ok(TokenPair {
            access_token: self.sign(&principal, TokenType::Access, Uuid::new_v4(), now, ACCESS_TTL)?,
            refresh_token: self.sign(&principal, TokenType::Refresh, refresh_jti, now, REFRESH_TTL)?,
            refresh: RefreshTokenRecord {
                jti: refresh_jti,
                session_id: principal.session_id,
                user_id: principal.user_id,
                application: principal.application,
                expires_at: now + REFRESH_TTL,
            },
        })
    }

    fn verify_access(&self, token: &str) -> Result<Principal, TokenError> {
        if let Some(principal) = self.already_verified(token, Utc::now()) {
            return Ok(principal);
        }
        let (principal, _, expires_at) = self.verify(token, TokenType::Access)?;
        self.verified_access
            .insert(token.to_owned(), (principal.clone(), expires_at));
        Ok(principal)
    }

    fn verify_refresh(&self, token: &str) -> Result<RefreshClaims, TokenError> {
        let (p, jti, _) = self.verify(token, TokenType::Refresh)?;
        Ok(RefreshClaims {
            user_id: p.user_id,
            application: p.application,
            session_id: p.session_id,
            jti,
        })
    }
}

/// A new Ed25519 key pair as PEM: the private key (PKCS#8) and the public key (SPKI).
pub fn generate_key_pair() -> Result<(String, String), KeyError> {
    use ed25519_dalek::pkcs8::EncodePublicKey;
    use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
    let key = SigningKey::generate(&mut rand::rngs::OsRng);
    let private = key.to_pkcs8_pem(LineEnding::LF).map_err(|e| KeyError::Parse {
        path: "nova chave".into(),
        reason: e.to_string(),
    })?;
    let public = key
        .verifying_key()
        .to_public_key_pem(LineEnding::LF)
        .map_err(|e| KeyError::Parse {
            path: "nova chave".into(),
            reason: e.to_string(),
        })?;
    Ok((private.to_string(), public))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn service(key: &SigningKey, previous: &[VerifyingKey]) -> JwtTokenService {
        JwtTokenService::new(key, previous, "sales-api", "sales-api").unwrap()
    }

    fn principal() -> Principal {
        Principal {
            user_id: 42,
            email: "ana@exemplo.com.br".into(),
            application: Application::Partner,
            session_id: Uuid::from_u128(7),
        }
    }

    fn key() -> SigningKey {
        SigningKey::generate(&mut rand::rngs::OsRng)
    }

    #[test]
    fn access_and_refresh_tokens_verify_only_as_their_own_type() {
        let svc = service(&key(), &[]);
        let pair = svc.issue(principal(), Utc::now()).unwrap();
        assert_eq!(svc.verify_access(&pair.access_token), Ok(principal()));
        assert_eq!(
            svc.verify_refresh(&pair.refresh_token).map(|c| c.jti),
            Ok(pair.refresh.jti)
        );
        assert_eq!(svc.verify_access(&pair.refresh_token), Err(TokenError::Invalid));
        assert_eq!(svc.verify_refresh(&pair.access_token), Err(TokenError::Invalid));
    }

    #[test]
    fn claims_carry_the_user_id_application_session_and_lifetimes() {
        let svc = service(&key(), &[]);
        let now = Utc::now();
        let pair = svc.issue(principal(), now).unwrap();
        let payload = pair.access_token.split('.').nth(1).unwrap();
        let claims: serde_json::Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap();
        assert_eq!(claims["sub"], "42");
        assert_eq!(claims["app"], "PARCEIRO");
        assert_eq!(claims["typ"], "access");
        assert_eq!(claims["sid"], Uuid::from_u128(7).to_string());
        assert_eq!(
            svc.verify_refresh(&pair.refresh_token).map(|c| c.session_id),
            Ok(Uuid::from_u128(7))
        );
        assert_eq!(pair.refresh.session_id, Uuid::from_u128(7));
        assert_eq!(claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap(), 3600);
        assert_eq!(pair.refresh.expires_at, now + Duration::hours(2));
        for claim in ["iss", "aud", "nbf", "jti"] {
            assert!(claims.get(claim).is_some(), "{claim}");
        }
    }

    #[test]
    fn expired_and_not_yet_valid_tokens_are_refused_beyond_the_leeway() {
        let svc = service(&key(), &[]);
        let old = svc
            .issue(principal(), Utc::now() - Duration::hours(1) - Duration::seconds(31))
            .unwrap();
        assert_eq!(svc.verify_access(&old.access_token), Err(TokenError::Invalid));
        let within_leeway = svc
            .issue(principal(), Utc::now() - Duration::hours(1) + Duration::seconds(20))
            .unwrap();
        assert!(svc.verify_access(&within_leeway.access_token).is_ok());
        let future = svc.issue(principal(), Utc::now() + Duration::seconds(120)).unwrap();
        assert_eq!(svc.verify_access(&future.access_token), Err(TokenError::Invalid));
    }

    #[test]
    fn a_verified_access_token_is_remembered_until_it_expires() {
        let svc = service(&key(), &[]);
        let now = Utc::now();
        let pair = svc.issue(principal(), now).unwrap();
        assert_eq!(svc.already_verified(&pair.access_token, now), None);
        assert_eq!(svc.verify_access(&pair.access_token), Ok(principal()));
        assert_eq!(svc.already_verified(&pair.access_token, now), Some(principal()));
        let past_leeway = now + ACCESS_TTL + Duration::seconds(31);
        assert_eq!(svc.already_verified(&pair.access_token, past_leeway), None);
        // Refresh tokens and refused tokens are never remembered.
        assert_eq!(svc.verify_access(&pair.refresh_token), Err(TokenError::Invalid));
        assert_eq!(svc.already_verified(&pair.refresh_token, now), None);
        assert!(svc.verify_refresh(&pair.refresh_token).is_ok());
        assert_eq!(svc.already_verified(&pair.refresh_token, now), None);
    }

    #[test]
    fn a_token_of_another_key_or_tampered_or_alg_none_is_refused() {
        let svc = service(&key(), &[]);
        let stranger = service(&key(), &[]);
        let foreign = stranger.issue(principal(), Utc::now()).unwrap();
        assert_eq!(svc.verify_access(&foreign.access_token), Err(TokenError::Invalid));

        let pair = svc.issue(principal(), Utc::now()).unwrap();
        let parts: Vec<&str> = pair.access_token.split('.').collect();
        let forged_payload = URL_SAFE_NO_PAD.encode(
            String::from_utf8(URL_SAFE_NO_PAD.decode(parts[1]).unwrap())
                .unwrap()
                .replace("\"42\"", "\"1\""),
        );
        let tampered = format!("{}.{}.{}", parts[0], forged_payload, parts[2]);
        assert_eq!(svc.verify_access(&tampered), Err(TokenError::Invalid));
        // Still refused once the genuine token is remembered.
        assert_eq!(svc.verify_access(&pair.access_token), Ok(principal()));
        assert_eq!(svc.verify_access(&tampered), Err(TokenError::Invalid));

        let none_header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
        assert_eq!(
            svc.verify_access(&format!("{none_header}.{}.", parts[1])),
            Err(TokenError::Invalid)
        );
        assert_eq!(svc.verify_access("not-a-token"), Err(TokenError::Invalid));
    }

    #[test]
    fn previous_keys_keep_verifying_after_a_rotation_and_are_published() {
        let old_key = key();
        let old = service(&old_key, &[]);
        let issued_before = old.issue(principal(), Utc::now()).unwrap();
        let rotated = service(&key(), &[old_key.verifying_key()]);
        assert_eq!(rotated.verify_access(&issued_before.access_token), Ok(principal()));
        assert_eq!(rotated.jwks().len(), 2);
        assert!(rotated.jwks().iter().all(|k| k.alg == "EdDSA" && k.crv == "Ed25519"));
    }

    #[test]
    fn generated_pem_pairs_load_back() {
        let (private, public) = generate_key_pair().unwrap();
        let signing = SigningKey::from_pkcs8_pem(&private).unwrap();
        let verifying = VerifyingKey::from_public_key_pem(&public).unwrap();
        assert_eq!(signing.verifying_key(), verifying);
    }
}
