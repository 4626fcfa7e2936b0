//! Which addresses count as the public internet.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// True only for globally routable unicast addresses. Loopback, private, link-local, shared
/// (CGNAT), multicast, reserved, documentation and benchmark ranges are all refused, as are IPv6
/// forms that embed such an IPv4 address.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(a == 0
        || a == 10
        || a == 127
        || (a == 169 && b == 254)
        || (a == 172 && (16..=31).contains(&b))
        || (a == 192 && b == 168)
        || (a == 100 && (64..=127).contains(&b))
        || (a == 192 && b == 0 && (c == 0 || c == 2))
        || (a == 198 && (b == 18 || b == 19))
        || (a == 198 && b == 51 && c == 100)
        || (a == 203 && b == 0 && c == 113)
        || a >= 224)
}

/// The IPv4 address an IPv6 address carries, for every form that embeds one: the forms a
/// translator or tunnel turns into a connection to that IPv4 address, which then decides.
pub fn embedded_v4(ip: Ipv6Addr) -> Option<Embedded> {
    let s = ip.segments();
    let last = v4_from(s[6], s[7]);
    match s {
        // Mapped (::ffff:a.b.c.d), SIIT (::ffff:0:a.b.c.d, RFC 6145), and NAT64, well-known
        // (64:ff9b::/96) and local-use (64:ff9b:1::/48, RFC 8215).
        [0, 0, 0, 0, 0, 0xffff, _, _]
        | [0, 0, 0, 0, 0xffff, 0, _, _]
        | [0x64, 0xff9b, 0, 0, 0, 0, _, _]
        | [0x64, 0xff9b, 1, ..] => Some(Embedded::One(last)),
        // IPv4-compatible (::a.b.c.d, deprecated), but not :: and ::1 themselves.
        [0, 0, 0, 0, 0, 0, _, _] if !ip.is_unspecified() && !ip.is_loopback() => Some(Embedded::One(last)),
        // 6to4 (2002:a.b.c.d::/48).
        [0x2002, hi, lo, ..] => Some(Embedded::One(v4_from(hi, lo))),
        // Teredo (2001:0::/32): the server in bits 32-63, the client's address inverted at the end.
        [0x2001, 0, server_hi, server_lo, _, _, client_hi, client_lo] => {
            Some(Embedded::Two(v4_from(server_hi, server_lo), v4_from(!client_hi, !client_lo)))
        }
        _ => None,
    }
}

/// The IPv4 address (or, for Teredo, addresses) an IPv6 address embeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Embedded {
    One(Ipv4Addr),
    /// A Teredo server and client: both must be public.
    Two(Ipv4Addr, Ipv4Addr),
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    match embedded_v4(ip) {
        Some(Embedded::One(v4)) => return is_public_v4(v4),
        Some(Embedded::Two(a, b)) => return is_public_v4(a) && is_public_v4(b),
        None => {}
    }
    let s = ip.segments();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || (s[0] & 0xfe00) == 0xfc00
        || (s[0] & 0xffc0) == 0xfe80
        || (s[0] & 0xffc0) == 0xfec0
        || (s[0] & 0xff00) == 0xff00
        || (s[0] == 0x2001 && s[1] == 0x0db8)
        || s[0] == 0x0100 && s[1..4] == [0, 0, 0])
}

fn v4_from(hi: u16, lo: u16) -> Ipv4Addr {
    let [a, b] = hi.to_be_bytes();
    let [c, d] = lo.to_be_bytes();
    Ipv4Addr::new(a, b, c, d)
}

/// Host names that always mean this machine.
pub fn is_local_name(host: &str) -> bool {
    let h = host.trim_end_matches('.').to_ascii_lowercase();
    h == "localhost" || h.ends_with(".localhost")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(ip: &str, public: bool) {
        let parsed: IpAddr = ip.parse().expect("ip");
        assert_eq!(is_public(parsed), public, "{ip}");
    }

    #[test]
    fn private_and_special_ranges_are_refused() {
        for ip in [
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "127.0.0.1",
            "127.255.255.254",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "100.64.0.1",
            "100.127.255.255",
            "224.0.0.1",
            "239.1.1.1",
            "255.255.255.255",
            "240.0.0.1",
            "192.0.2.5",
            "198.18.0.1",
            "198.51.100.7",
            "203.0.113.9",
            "::",
            "::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "ff02::1",
            "::ffff:10.0.0.1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "64:ff9b::10.0.0.1",
            "2002:0a00:0001::1",
            "2001:db8::1",
            "::ffff:0:7f00:1",
            "::ffff:0:a00:1",
            "64:ff9b:1::7f00:1",
            "64:ff9b:1:abcd::c0a8:101",
            "2001:0:4136:e378:8000:63bf:80ff:fffe",
            "2001:0:a00:1:0:0:bcff:fefe",
        ] {
            check(ip, false);
        }
    }

    #[test]
    fn the_internet_is_allowed() {
        for ip in [
            "93.184.216.34",
            "1.1.1.1",
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700:4700::1111",
            "::ffff:93.184.216.34",
            "64:ff9b::1.1.1.1",
            "::ffff:0:5db8:d822",
            "2001:0:4136:e378:8000:63bf:a2b7:2bdd",
        ] {
            check(ip, true);
        }
    }

    /// Every form that embeds an IPv4 address is judged by that address, for any address.
    #[test]
    fn embedded_addresses_decide_for_every_ipv4() {
        let mut x: u32 = 0x1234_5678;
        let server = Ipv4Addr::new(65, 54, 227, 120);
        let mut tried = 0;
        for _ in 0..20_000 {
            // xorshift32: every part of the space, the special ranges included.
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let v4 = Ipv4Addr::from(x);
            let [a, b, c, d] = v4.octets();
            let (hi, lo) = (u16::from_be_bytes([a, b]), u16::from_be_bytes([c, d]));
            let forms = [
                Ipv6Addr::new(0, 0, 0, 0, 0, 0xffff, hi, lo),
                Ipv6Addr::new(0, 0, 0, 0, 0xffff, 0, hi, lo),
                Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, hi, lo),
                Ipv6Addr::new(0x64, 0xff9b, 1, 0, 0, 0, hi, lo),
                Ipv6Addr::new(0x2002, hi, lo, 0, 0, 0, 0, 1),
            ];
            for form in forms {
                assert_eq!(is_public_v6(form), is_public_v4(v4), "{form} carries {v4}");
                tried += 1;
            }
            let teredo = Ipv6Addr::new(0x2001, 0, 0x4136, 0xe378, 0x8000, 0x63bf, !hi, !lo);
            assert_eq!(is_public_v6(teredo), is_public_v4(v4) && is_public_v4(server), "{teredo}");
            if x > 1 {
                let compat = Ipv6Addr::new(0, 0, 0, 0, 0, 0, hi, lo);
                assert_eq!(is_public_v6(compat), is_public_v4(v4), "{compat}");
            }
        }
        assert!(tried >= 100_000);
    }

    #[test]
    fn local_names() {
        assert!(is_local_name("localhost") && is_local_name("LOCALHOST.") && is_local_name("api.localhost"));
        assert!(!is_local_name("localhost.example.com"));
    }
}
