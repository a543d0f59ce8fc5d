//! The callback URL of an event subscription.

use crate::validation::Rejection;
use std::fmt;
use url::{Host, Url};

pub const FORMAT: &str = "endpoint_invalido";
pub const BLOCKED: &str = "endpoint_bloqueado";

const MAX_LENGTH: usize = 2048;

/// An absolute `http` or `https` URL with a host, no credentials and no fragment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint(Url);

/// Where an endpoint's host points: a name to resolve, or a literal address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EndpointHost {
    Name(String),
    Address(std::net::IpAddr),
}

impl Endpoint {
    pub fn parse(input: &str) -> Result<Self, Rejection> {
        let input = input.trim();
        let refuse = |why: &str| Rejection::new(FORMAT, format!("endpoint {why}"));
        if input.len() > MAX_LENGTH {
            return Err(refuse("deve ter no máximo 2048 caracteres"));
        }
        let url = Url::parse(input).map_err(|_| refuse("deve ser uma URL absoluta http:// ou https://"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(refuse("deve usar http:// ou https://"));
        }
        if url.host().is_none() {
            return Err(refuse("deve ter um host"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(refuse("não pode conter usuário ou senha"));
        }
        if url.fragment().is_some() {
            return Err(refuse("não pode conter fragmento (#)"));
        }
        Ok(Self(url))
    }

    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The host as the URL parser normalised it (so `http://2130706433/` is the address 127.0.0.1).
    pub fn host(&self) -> EndpointHost {
        match self.0.host() {
            Some(Host::Ipv4(ip)) => EndpointHost::Address(ip.into()),
            Some(Host::Ipv6(ip)) => EndpointHost::Address(ip.into()),
            Some(Host::Domain(name)) => EndpointHost::Name(name.to_owned()),
            None => EndpointHost::Name(String::new()),
        }
    }

    pub fn port(&self) -> u16 {
        self.0.port_or_known_default().unwrap_or(80)
    }
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{IpAddr, Ipv4Addr};

    #[test]
    fn accepts_http_and_https_urls() {
        assert_eq!(
            Endpoint::parse(" https://parceiro.example.com/hooks?x=1 ")
                .unwrap()
                .as_str(),
            "https://parceiro.example.com/hooks?x=1"
        );
        assert_eq!(Endpoint::parse("http://h.example:8080/").unwrap().port(), 8080);
    }

    #[test]
    fn refuses_other_schemes_relative_and_malformed_urls() {
        for bad in [
            "ftp://example.com/",
            "file:///etc/passwd",
            "gopher://x/",
            "/hooks",
            "example.com/hooks",
            "http://",
            "https://user:pass@example.com/",
            "https://example.com/#x",
            "http://exa mple.com/",
        ] {
            assert_eq!(Endpoint::parse(bad).unwrap_err().code, FORMAT, "{bad}");
        }
        let long = format!("https://example.com/{}", "a".repeat(2100));
        assert_eq!(Endpoint::parse(&long).unwrap_err().code, FORMAT);
    }

    #[test]
    fn literal_addresses_are_normalised_before_any_check() {
        let host = |u: &str| Endpoint::parse(u).unwrap().host();
        let loopback = EndpointHost::Address(IpAddr::V4(Ipv4Addr::LOCALHOST));
        assert_eq!(host("http://2130706433/"), loopback);
        assert_eq!(host("http://0x7f.1/"), loopback);
        assert_eq!(host("http://127.1/"), loopback);
        assert_eq!(host("http://[::1]/"), EndpointHost::Address("::1".parse().unwrap()));
        assert_eq!(host("http://Exemplo.COM/"), EndpointHost::Name("exemplo.com".into()));
    }
}
