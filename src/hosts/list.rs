//! `--hosts`: which nodes to read, from a comma list, `@FILE` or
//! `$NVQ_HOSTS`.
//!
//! An entry is `host`, `host:port`, `[v6]:port`, or an `http://` or
//! `https://` URL with an optional path prefix (`https://gpu7:9835/nvq`),
//! or `ssh://[user@]host[:port]` (a node without `nvq serve`, read by
//! running nvq there through `ssh`: `hosts::ssh`). A bare host means
//! `http://host:9835`, `nvq serve`'s own port. What an entry may hold is
//! narrow (letters, digits, `.`, `-`, `_`, `:`, `[`, `]`, a user's `@`, and
//! in a URL's path also `/`), and no host or user starts with `-`, so that
//! no entry can carry a space, a control character or an option into a
//! request, an `ssh` command line or a message.

use nvq_core::error::NvqError;
use std::io::Read;
use std::path::Path;

/// `nvq serve`'s default port.
pub const DEFAULT_PORT: u16 = 9835;

/// The most hosts one command reads.
pub const MAX_HOSTS: usize = 1024;

/// The most bytes of an `@FILE` list read.
pub const MAX_FILE: u64 = 1 << 20;

/// The path (its end) of an entry that names another exporter's metrics.
pub const METRICS: &str = "/metrics";

/// The environment variable read when `--hosts` is not given.
pub const HOSTS_ENV: &str = "NVQ_HOSTS";

/// One node, as the user named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    /// The entry as given (the `host` column shows it).
    pub name: String,
    /// `https`, else `http`.
    pub tls: bool,
    /// The host name or address, without brackets (`::1` for `[::1]`).
    pub host: String,
    pub port: u16,
    /// The path prefix, empty or starting with `/` and not ending with one.
    pub prefix: String,
    /// `ssh://` nodes: how to log in.
    pub ssh: Option<Ssh>,
    /// A node that runs another exporter: its path ends in `/metrics`,
    /// which is scraped (`hosts::exporter`).
    pub scrape: bool,
}

/// How an `ssh://` node is logged into: what the entry says, the rest
/// from the user's ssh config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ssh {
    /// `user@`: the login name, else ssh's own choice.
    pub user: Option<String>,
    /// `:port`, else ssh's own choice.
    pub port: Option<u16>,
}

impl Host {
    /// `host:port` as a request's `Host` header and a connection want it.
    pub fn authority(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// Why a host list is refused: a usage error naming the entry.
fn bad(entry: &str, why: &str) -> NvqError {
    NvqError::Usage(format!(
        "--hosts: {}: {why}",
        nvq_core::render::printable(&quote(entry))
    ))
}

/// An entry quoted for a message, cut to 80 characters.
fn quote(entry: &str) -> String {
    let mut s: String = entry.chars().take(80).collect();
    if s.len() < entry.len() {
        s.push('…');
    }
    format!("\"{s}\"")
}

fn name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')
}

/// One entry of a list.
pub fn parse_entry(entry: &str) -> Result<Host, NvqError> {
    if let Some(rest) = entry.strip_prefix("ssh://") {
        return parse_ssh(entry, rest);
    }
    let (tls, rest) = if let Some(r) = entry.strip_prefix("https://") {
        (true, r)
    } else if let Some(r) = entry.strip_prefix("http://") {
        (false, r)
    } else if entry.contains("://") {
        return Err(bad(
            entry,
            "only http://, https:// and ssh:// nodes can be read",
        ));
    } else {
        (false, entry)
    };
    let (authority, prefix) = match rest.find('/') {
        Some(i) => (&rest[..i], rest[i..].trim_end_matches('/')),
        None => (rest, ""),
    };
    if !prefix.chars().all(|c| name_char(c) || c == '/' || c == '~') {
        return Err(bad(entry, "a path may hold letters, digits, . - _ ~ and /"));
    }
    let (host, port) = host_port(entry, authority)?;
    Ok(Host {
        name: entry.to_string(),
        tls,
        host,
        port: port.unwrap_or(DEFAULT_PORT),
        prefix: prefix.to_string(),
        ssh: None,
        scrape: prefix.ends_with(METRICS),
    })
}

/// An `ssh://[user@]host[:port]` entry (`rest` follows `ssh://`).
fn parse_ssh(entry: &str, rest: &str) -> Result<Host, NvqError> {
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    if rest.contains('/') {
        return Err(bad(
            entry,
            "an ssh:// node has no path: ssh://[user@]host[:port]",
        ));
    }
    let (user, authority) = match rest.rsplit_once('@') {
        Some((u, a)) => (Some(u), a),
        None => (None, rest),
    };
    if let Some(u) = user {
        if u.is_empty() || u.len() > 64 || u.starts_with(['-', '.']) || !u.chars().all(name_char) {
            return Err(bad(
                entry,
                "a user is a name of letters, digits, . - and _, not starting with - or .",
            ));
        }
    }
    let (host, port) = host_port(entry, authority)?;
    Ok(Host {
        name: entry.to_string(),
        tls: false,
        host,
        port: port.unwrap_or(22),
        prefix: String::new(),
        ssh: Some(Ssh {
            user: user.map(str::to_string),
            port,
        }),
        scrape: false,
    })
}

/// The host and the port (if given) of an entry's `host[:port]` or
/// `[v6][:port]`.
fn host_port(entry: &str, authority: &str) -> Result<(String, Option<u16>), NvqError> {
    let (host, port) = if let Some(r) = authority.strip_prefix('[') {
        let (h, after) = r
            .split_once(']')
            .ok_or_else(|| bad(entry, "an IPv6 address needs its closing ]"))?;
        if h.is_empty()
            || !h
                .chars()
                .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.')
        {
            return Err(bad(entry, "not an IPv6 address"));
        }
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p),
            None if after.is_empty() => None,
            None => return Err(bad(entry, "only :PORT may follow an IPv6 address")),
        };
        (h, port)
    } else {
        match authority.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    let port = match port {
        None => None,
        Some(p) => Some(
            p.parse::<u16>()
                .ok()
                .filter(|&p| p > 0)
                .ok_or_else(|| bad(entry, "the port must be a number from 1 to 65535"))?,
        ),
    };
    let ipv6 = host.contains(':');
    if host.is_empty()
        || host.len() > 253
        || host.starts_with(['-', '.'])
        || !(ipv6 || host.chars().all(name_char))
    {
        return Err(bad(
            entry,
            "a host is a name or address of letters, digits, . - and _",
        ));
    }
    Ok((host.to_string(), port))
}

/// The entries of a comma list, or of the file an `@FILE` names (one per
/// line, `#` starting a comment), or of `$NVQ_HOSTS` when `value` is
/// `None`. `Ok(None)`: no hosts were asked for.
pub fn hosts(value: Option<&str>) -> Result<Option<Vec<Host>>, NvqError> {
    let env;
    let value = match value {
        Some(v) => v,
        None => match std::env::var(HOSTS_ENV) {
            Ok(v) if !v.trim().is_empty() => {
                env = v;
                env.as_str()
            }
            _ => return Ok(None),
        },
    };
    let text;
    let entries: Vec<&str> = match value.strip_prefix('@') {
        Some(file) => {
            text = read_list(Path::new(file))?;
            text.lines()
                .map(|l| l.split('#').next().unwrap_or("").trim())
                .filter(|l| !l.is_empty())
                .collect()
        }
        None => value.split(',').map(str::trim).collect(),
    };
    if entries.is_empty() || entries.iter().any(|e| e.is_empty()) {
        return Err(NvqError::Usage(
            "--hosts needs a comma list of nodes (host, host:port or a URL) or @FILE, without empty entries."
                .into(),
        ));
    }
    if entries.len() > MAX_HOSTS {
        return Err(NvqError::Usage(format!(
            "--hosts names {} nodes; nvq reads at most {MAX_HOSTS} at once.",
            entries.len()
        )));
    }
    let mut hosts: Vec<Host> = Vec::with_capacity(entries.len());
    for e in entries {
        let h = parse_entry(e)?;
        if hosts.iter().any(|o| o.name == h.name) {
            return Err(bad(e, "is named twice"));
        }
        hosts.push(h);
    }
    Ok(Some(hosts))
}

/// An `@FILE` list: a regular file (not a FIFO or a device, which could
/// block or never end), at most [`MAX_FILE`] bytes, UTF-8.
fn read_list(path: &Path) -> Result<String, NvqError> {
    let shown = nvq_core::render::printable(&path.to_string_lossy()).into_owned();
    let fail = |why: String| NvqError::Usage(format!("--hosts @{shown}: {why}"));
    let file = std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
    let meta = file.metadata().map_err(|e| fail(e.to_string()))?;
    if !meta.is_file() {
        return Err(fail("not a regular file".into()));
    }
    if meta.len() > MAX_FILE {
        return Err(fail(format!("larger than {MAX_FILE} bytes")));
    }
    let mut text = String::new();
    file.take(MAX_FILE)
        .read_to_string(&mut text)
        .map_err(|e| fail(e.to_string()))?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(e: &str) -> Host {
        parse_entry(e).unwrap()
    }

    #[test]
    fn entries_name_a_node_and_its_port() {
        let h = one("gpu1");
        assert_eq!((h.tls, h.host.as_str(), h.port), (false, "gpu1", 9835));
        assert_eq!(h.authority(), "gpu1:9835");
        let h = one("10.0.0.7:9900");
        assert_eq!((h.host.as_str(), h.port), ("10.0.0.7", 9900));
        let h = one("[::1]:9836");
        assert_eq!((h.host.as_str(), h.port), ("::1", 9836));
        assert_eq!(h.authority(), "[::1]:9836");
        let h = one("https://gpu7.example:443/nvq/");
        assert_eq!(
            (h.tls, h.host.as_str(), h.port, h.prefix.as_str()),
            (true, "gpu7.example", 443, "/nvq")
        );
        assert_eq!(h.name, "https://gpu7.example:443/nvq/");
        assert!(!h.scrape);
        let h = one("http://gpu8:9400/metrics");
        assert!(h.scrape && h.prefix == "/metrics" && h.port == 9400);
        assert!(one("gpu9/dcgm/metrics/").scrape);
        assert!(!one("gpu9/metricsx").scrape);
        let h = one("ssh://ops@node3:2222");
        let ssh = h.ssh.unwrap();
        assert_eq!(
            (h.host.as_str(), ssh.user.as_deref(), ssh.port),
            ("node3", Some("ops"), Some(2222))
        );
        let h = one("ssh://[::1]");
        assert_eq!(
            (h.host.as_str(), h.ssh.unwrap()),
            (
                "::1",
                Ssh {
                    user: None,
                    port: None
                }
            )
        );
    }

    #[test]
    fn hostile_entries_are_refused_by_name() {
        for e in [
            "-oProxyCommand=x",
            "gpu1 gpu2",
            "gpu\u{1b}]0;x\u{7}",
            "gpu:0",
            "gpu:99999",
            "ftp://gpu",
            "ssh://-oProxyCommand=x",
            "ssh://-l@gpu",
            "ssh://u@-gpu",
            "ssh://gpu/path",
            "ssh://a b@gpu",
            "ssh://gpu:0",
            "[::1",
            "http://gpu/a b",
            "",
        ] {
            assert!(parse_entry(e).is_err(), "{e:?} was taken");
        }
        let Err(NvqError::Usage(m)) = parse_entry("gpu\u{1b}]0;x\u{7}") else {
            panic!()
        };
        assert!(!m.chars().any(char::is_control), "{m:?}");
    }

    #[test]
    fn a_list_a_file_and_limits() {
        let hs = hosts(Some("a, b:1 ,https://c")).unwrap().unwrap();
        let names: Vec<&str> = hs.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names, ["a", "b:1", "https://c"]);
        assert!(hosts(Some("a,,b")).is_err());
        assert!(hosts(Some("a,a")).is_err());
        let many = vec!["h"; MAX_HOSTS + 1]
            .iter()
            .enumerate()
            .map(|(i, h)| format!("{h}{i}"))
            .collect::<Vec<_>>()
            .join(",");
        assert!(hosts(Some(&many)).is_err());
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("nodes");
        std::fs::write(&f, "# the job's nodes\nnode1\n\n  node2:9900  # spare\n").unwrap();
        let hs = hosts(Some(&format!("@{}", f.display()))).unwrap().unwrap();
        assert_eq!(hs.len(), 2);
        assert_eq!(hs[1].port, 9900);
        assert!(hosts(Some(&format!("@{}", dir.path().display()))).is_err());
    }
}
