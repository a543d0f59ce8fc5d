//! Who signs in, and what the tokens say about them.

use crate::auth::password::PasswordHash;
use crate::values::{Application, Email};
use chrono::{DateTime, Utc};
use uuid::Uuid;

pub type UserId = i64;

/// One sign-in: every access and refresh token it leads to carries its id, and ending it (sign-out,
/// a reused refresh token) ends them all at once.
pub type SessionId = Uuid;

/// A user as the sign-in needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserAccount {
    pub id: UserId,
    pub email: Email,
    pub password_hash: PasswordHash,
    pub applications: Vec<Application>,
    /// The generation of the user's credentials: a password reset, a disable or a change of
    /// applications moves it on, and a session opened under an older one is over.
    pub credentials_epoch: i32,
    pub disabled: bool,
}

impl UserAccount {
    pub fn may_use(&self, application: Application) -> bool {
        self.applications.contains(&application)
    }
}

/// What an access token proves: this user (and its e-mail, recorded as who changed a record),
/// signed in to this application.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    pub user_id: UserId,
    pub email: String,
    pub application: Application,
    pub session_id: SessionId,
}

/// The claims of a verified refresh token that matter to the rotation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefreshClaims {
    pub user_id: UserId,
    pub application: Application,
    pub session_id: SessionId,
    pub jti: Uuid,
}

/// A freshly signed pair, and what the store must remember about its refresh token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenPair {
    pub access_token: String,
    pub refresh_token: String,
    pub refresh: RefreshTokenRecord,
}

/// One refresh token as stored: each is usable once; all tokens of one sign-in belong to its
/// session, so a reused token ends the whole chain that descends from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefreshTokenRecord {
    pub jti: Uuid,
    pub session_id: SessionId,
    pub user_id: UserId,
    pub application: Application,
    pub expires_at: DateTime<Utc>,
}

/// A session as it opens: whose, for which application, under which generation of the user's
/// credentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewSession {
    pub id: SessionId,
    pub user_id: UserId,
    pub application: Application,
    pub credentials_epoch: i32,
}

/// The result of presenting a refresh token to the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RotateOutcome {
    /// First use: the token is spent and its successor stored.
    Rotated,
    /// Already used: the store has ended its whole session.
    Reused,
    /// Never issued here (or purged), expired, or its session is over.
    Invalid,
}

/// Which counter an attempt moves.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ThrottleKey {
    /// One account (by its e-mail, known or not) from one client.
    Pair(String),
    Email(String),
    ClientAddress(String),
    /// Password-recovery requests per client address.
    RecoveryAddress(String),
    /// Asking for the person's own link (privacy), by client address.
    PersonLinkAddress(String),
}

/// The part of a client's address that names one client: an IPv4 address whole; an IPv6 address
/// by its /64, since one subscriber is given a whole /64 and could otherwise step through it
/// (an IPv4-mapped IPv6 address counts as the IPv4 one). Anything unparsable is kept as given.
pub fn client_counter(address: &str) -> String {
    match address.trim().parse::<std::net::IpAddr>() {
        Ok(ip) => client_network(ip),
        Err(_) => address.to_owned(),
    }
}

/// [`client_counter`] of an address already read: the IPv4 address, or the IPv6 one's /64.
pub fn client_network(ip: std::net::IpAddr) -> String {
    use std::net::{IpAddr, Ipv6Addr};
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let [a, b, c, d, ..] = v6.segments();
                format!("{}/64", Ipv6Addr::new(a, b, c, d, 0, 0, 0, 0))
            }
        },
    }
}

impl ThrottleKey {
    /// The counter of one e-mail from one client address (`None`: no address was seen).
    pub fn pair(email: &str, address: Option<&str>) -> Self {
        let client = address.map(client_counter).unwrap_or_else(|| "-".to_owned());
        ThrottleKey::Pair(format!("{email} {client}"))
    }

    /// The sign-in counter of a client address (an IPv6 one by its /64).
    pub fn client(address: &str) -> Self {
        ThrottleKey::ClientAddress(client_counter(address))
    }

    /// The recovery counter of a client address (an IPv6 one by its /64).
    pub fn recovery(address: &str) -> Self {
        ThrottleKey::RecoveryAddress(client_counter(address))
    }

    /// The counter of asking for a person's own link (privacy) from a client address.
    pub fn person_link(address: &str) -> Self {
        ThrottleKey::PersonLinkAddress(client_counter(address))
    }

    pub fn scope(&self) -> &'static str {
        match self {
            ThrottleKey::Pair(_) => "signin_pair",
            ThrottleKey::Email(_) => "signin_email",
            ThrottleKey::ClientAddress(_) => "signin_ip",
            ThrottleKey::RecoveryAddress(_) => "recovery_ip",
            ThrottleKey::PersonLinkAddress(_) => "privacy_link_ip",
        }
    }

    pub fn value(&self) -> &str {
        match self {
            ThrottleKey::Pair(v)
            | ThrottleKey::Email(v)
            | ThrottleKey::ClientAddress(v)
            | ThrottleKey::RecoveryAddress(v)
            | ThrottleKey::PersonLinkAddress(v) => v,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_client_counts_by_its_64_and_an_ipv4_one_whole() {
        let one = ThrottleKey::client("2001:db8:aa:bb:1:2:3:4");
        let same_subscriber = ThrottleKey::client("2001:db8:aa:bb:ffff::9");
        assert_eq!(one, same_subscriber);
        assert_eq!(one.value(), "2001:db8:aa:bb::/64");
        assert_ne!(one, ThrottleKey::client("2001:db8:aa:bc::1"));
        assert_eq!(ThrottleKey::client("203.0.113.5").value(), "203.0.113.5");
        assert_eq!(ThrottleKey::client("::ffff:203.0.113.5").value(), "203.0.113.5");
        assert_eq!(ThrottleKey::recovery("2001:db8::1").value(), "2001:db8::/64");
        assert_eq!(ThrottleKey::client("não é ip").value(), "não é ip");
        assert_eq!(
            ThrottleKey::pair("ana@exemplo.com.br", Some("2001:db8:aa:bb::7")).value(),
            "ana@exemplo.com.br 2001:db8:aa:bb::/64"
        );
        assert_eq!(
            ThrottleKey::pair("ana@exemplo.com.br", None).value(),
            "ana@exemplo.com.br -"
        );
    }
}
