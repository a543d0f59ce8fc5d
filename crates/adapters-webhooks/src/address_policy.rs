//! Which addresses a webhook may be sent to: public unicast ones, plus any range configured in
//! `HOOKS_ALLOWED_CIDRS` (loopback in development and tests).

use ipnet::IpNet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::LazyLock;

/// Ranges that are not the public internet (IANA special-purpose registries, IPv4 and IPv6).
static BLOCKED: LazyLock<Vec<IpNet>> = LazyLock::new(|| {
    [
        // IPv4
        "0.0.0.0/8",       // "this network"
        "10.0.0.0/8",      // private
        "100.64.0.0/10",   // carrier-grade NAT
        "127.0.0.0/8",     // loopback
        "169.254.0.0/16",  // link-local (cloud metadata lives here)
        "172.16.0.0/12",   // private
        "192.0.0.0/24",    // IETF protocol assignments
        "192.0.2.0/24",    // documentation
        "192.88.99.0/24",  // 6to4 relay anycast
        "192.168.0.0/16",  // private
        "198.18.0.0/15",   // benchmarking
        "198.51.100.0/24", // documentation
        "203.0.113.0/24",  // documentation
        "224.0.0.0/4",     // multicast
        "240.0.0.0/4",     // reserved, and the broadcast address
        // IPv6
        "::/128",         // unspecified
        "::1/128",        // loopback
        "::/96",          // IPv4-compatible (deprecated)
        "64:ff9b:1::/48", // local-use NAT64
        "100::/64",       // discard-only
        "2001::/23",      // IETF protocol assignments (Teredo, ORCHID...)
        "2001:db8::/32",  // documentation
        "2002::/16",      // 6to4
        "fc00::/7",       // unique local
        "fe80::/10",      // link-local
        "fec0::/10",      // site-local (deprecated)
        "ff00::/8",       // multicast
    ]
    .iter()
    .filter_map(|net| net.parse().ok())
    .collect()
});

#[derive(Debug, Clone, Default)]
pub struct AddressPolicy {
    allowed: Vec<IpNet>,
}

/// The IPv4 address an IPv6 one stands for (mapped `::ffff:a.b.c.d`, or well-known NAT64
/// `64:ff9b::a.b.c.d`), judged as that IPv4 address.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    let segments = ip.segments();
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        let [.., a, b, c, d] = ip.octets();
        return Some(Ipv4Addr::new(a, b, c, d));
    }
    None
}

impl AddressPolicy {
    pub fn new(allowed: Vec<IpNet>) -> Self {
        Self { allowed }
    }

    /// Whether a webhook may be sent to `ip`.
    pub fn permits(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => embedded_v4(v6).map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        if self.allowed.iter().any(|net| net.contains(&ip)) {
            return true;
        }
        !BLOCKED.iter().any(|net| net.contains(&ip))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn blocks_every_non_public_range_in_both_families() {
        let policy = AddressPolicy::default();
        for blocked in [
            "0.0.0.0",
            "127.0.0.1",
            "127.255.255.254",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "100.127.255.255",
            "224.0.0.1",
            "239.255.255.250",
            "255.255.255.255",
            "198.18.0.1",
            "192.0.2.10",
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::7f00:1",
            "::127.0.0.1",
            "fe80::1",
            "fc00::1",
            "fd12:3456::1",
            "ff02::1",
            "2001:db8::1",
            "2002:7f00:1::1",
            "2001::1",
        ] {
            assert!(!policy.permits(ip(blocked)), "{blocked} should be blocked");
        }
    }

    #[test]
    fn permits_public_addresses() {
        let policy = AddressPolicy::default();
        for public in [
            "8.8.8.8",
            "1.1.1.1",
            "200.160.2.3",
            "172.32.0.1",
            "100.128.0.1",
            "2804:14c::1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
        ] {
            assert!(policy.permits(ip(public)), "{public} should be permitted");
        }
    }

    #[test]
    fn the_allow_list_lifts_the_block_for_its_ranges_only() {
        let policy = AddressPolicy::new(vec!["127.0.0.0/8".parse().unwrap()]);
        assert!(policy.permits(ip("127.0.0.1")));
        assert!(policy.permits(ip("::ffff:127.0.0.1")));
        assert!(!policy.permits(ip("::1")));
        assert!(!policy.permits(ip("10.0.0.1")));
    }
}
