//! `--web.config.file`: the Prometheus exporter-toolkit's YAML file, so that
//! the file a fleet already has for its other exporters works here too.
//!
//! ```yaml
//! tls_server_config:
//!   cert_file: server.crt          # PEM; relative paths are from this file's directory
//!   key_file: server.key
//!   client_auth_type: RequireAndVerifyClientCert   # or NoClientCert (default), VerifyClientCertIfGiven
//!   client_ca_file: ca.crt
//!   min_version: TLS12             # or TLS13
//! basic_auth_users:
//!   prometheus: $2y$10$...         # bcrypt hashes
//! ```
//!
//! A key nvq does not implement is refused, never ignored: a file that asks
//! for something nvq would not do must not start an open server.
//!
//! The file may be anything (`--web.config.file=/etc/shadow`), so it and
//! the PEM files it names are read only as regular files of at most
//! [`MAX_FILE`] bytes that other users cannot write ([`read_trusted`]),
//! YAML anchors and aliases are refused while parsing (nothing expands),
//! and an error names the key and the line, never the file's text.

use nvq_core::error::NvqError;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_rustls::rustls;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

/// The most the config file, and each PEM file it names, may hold.
pub const MAX_FILE: u64 = 1 << 20;

/// What the file asks for.
#[derive(Debug, Default)]
pub struct WebConfig {
    pub tls: Option<Tls>,
    /// User name → bcrypt hash. Empty: no authentication.
    pub users: Vec<(String, String)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    None,
    VerifyIfGiven,
    Require,
}

#[derive(Debug)]
pub struct Tls {
    pub cert_file: PathBuf,
    pub key_file: PathBuf,
    pub client_auth: ClientAuth,
    pub client_ca_file: Option<PathBuf>,
    pub tls13_only: bool,
}

fn bad(path: &Path, why: impl std::fmt::Display) -> NvqError {
    NvqError::Usage(format!("--web.config.file {}: {why}", path.display()))
}

/// Read a file the server trusts: a regular file (a FIFO, a device or a
/// folder is refused, and never waited on), at most [`MAX_FILE`] bytes, that
/// no other user can write, nor replace through a folder above it (the rule
/// of [`nvq_core::trust`], as for every file nvq takes as its own). The error
/// says why, never what the file holds.
pub fn read_trusted(path: &Path) -> Result<Vec<u8>, String> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    nvq_core::trust::check_open(path, &file).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.len() as u64 > MAX_FILE {
        return Err(format!("{} is larger than 1 MiB.", path.display()));
    }
    Ok(bytes)
}

/// A YAML node as the file has it, with the line it starts on. Scalars stay
/// text; anchors and aliases are refused while parsing, so nothing expands.
#[derive(Debug)]
enum Node {
    Text(String),
    /// A list (no key of the file takes one).
    List,
    Map(Vec<(Item, Item)>),
}

#[derive(Debug)]
struct Item {
    node: Node,
    line: usize,
}

/// Builds the first document's tree from the parser's events.
#[derive(Default)]
struct Tree {
    /// Open lists and mappings (a mapping's items alternate key, value).
    open: Vec<(bool, Vec<Item>, usize)>,
    root: Option<Item>,
    /// The first anchor or alias: its line.
    anchor: Option<usize>,
}

impl Tree {
    fn add(&mut self, item: Item) {
        match self.open.last_mut() {
            Some((_, items, _)) => items.push(item),
            None => {
                if self.root.is_none() {
                    self.root = Some(item);
                }
            }
        }
    }
}

impl MarkedEventReceiver for Tree {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        if self.anchor.is_some() {
            return;
        }
        let line = mark.line();
        match ev {
            Event::Alias(_) => self.anchor = Some(line),
            Event::Scalar(_, _, a, _) | Event::SequenceStart(a, _) | Event::MappingStart(a, _)
                if a > 0 =>
            {
                self.anchor = Some(line)
            }
            Event::Scalar(v, ..) => self.add(Item {
                node: Node::Text(v),
                line,
            }),
            Event::SequenceStart(..) => self.open.push((false, Vec::new(), line)),
            Event::MappingStart(..) => self.open.push((true, Vec::new(), line)),
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((map, items, line)) = self.open.pop() {
                    let node = if map {
                        let mut pairs = Vec::with_capacity(items.len() / 2);
                        let mut it = items.into_iter();
                        while let (Some(k), Some(v)) = (it.next(), it.next()) {
                            pairs.push((k, v));
                        }
                        Node::Map(pairs)
                    } else {
                        Node::List
                    };
                    self.add(Item { node, line });
                }
            }
            _ => {}
        }
    }
}

/// The first document of `source`, or why not (a line, never the text).
fn parse(source: &str) -> Result<Option<Item>, String> {
    let mut tree = Tree::default();
    Parser::new_from_str(source)
        .load(&mut tree, false)
        .map_err(|e| {
            let m = e.marker();
            // The scanner's few words, unless they quote the file.
            let what = e.info();
            let what = if what.contains('`') || what.contains('\'') {
                ""
            } else {
                what
            };
            format!(
                "line {}, column {}: not valid YAML{}{what}.",
                m.line(),
                m.col() + 1,
                if what.is_empty() { "" } else { ": " }
            )
        })?;
    if let Some(line) = tree.anchor {
        return Err(format!(
            "line {line}: YAML anchors and aliases are not accepted."
        ));
    }
    Ok(tree.root)
}

/// A scalar's text, or which key needs one.
fn text<'a>(path: &Path, key: &str, v: &'a Item) -> Result<&'a str, NvqError> {
    match &v.node {
        Node::Text(t) => Ok(t),
        _ => Err(bad(
            path,
            format!("line {}: {key} needs a text value.", v.line),
        )),
    }
}

impl WebConfig {
    /// Read and check the file. An error names the key and the line, never
    /// what the file holds: the file may be anything (`/etc/shadow`).
    pub fn load(path: &Path) -> Result<Self, NvqError> {
        let bytes = read_trusted(path).map_err(|e| bad(path, e))?;
        let source =
            String::from_utf8(bytes).map_err(|_| bad(path, "not a text file (not UTF-8)."))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut cfg = WebConfig::default();
        let root = match parse(&source).map_err(|e| bad(path, e))? {
            None => return Ok(cfg),
            Some(Item {
                node: Node::Text(t),
                ..
            }) if matches!(t.as_str(), "" | "~" | "null") => return Ok(cfg),
            Some(Item {
                node: Node::Map(m), ..
            }) => m,
            Some(i) => {
                return Err(bad(
                    path,
                    format!(
                    "line {}: expected a mapping (tls_server_config, basic_auth_users) at the top.",
                    i.line
                ),
                ))
            }
        };
        for (k, v) in &root {
            let key = match &k.node {
                Node::Text(t) => t.as_str(),
                _ => "",
            };
            match key {
                "tls_server_config" => cfg.tls = Some(Tls::from_yaml(path, dir, v)?),
                "basic_auth_users" => {
                    let Node::Map(users) = &v.node else {
                        return Err(bad(
                            path,
                            format!(
                                "line {}: basic_auth_users needs a mapping of user: bcrypt hash.",
                                v.line
                            ),
                        ));
                    };
                    for (user, hash) in users {
                        let name = text(path, "a basic_auth_users name", user)?;
                        let h = text(path, "a basic_auth_users hash", hash)?;
                        // A hash bcrypt cannot read would refuse everyone;
                        // one too slow to check would hold every scrape.
                        super::auth::check_hash(h)
                            .map_err(|why| bad(path, format!("line {}: {why}", hash.line)))?;
                        cfg.users.push((name.to_string(), h.to_string()));
                    }
                }
                _ => {
                    return Err(bad(
                        path,
                        format!(
                            "line {}: a key nvq does not implement (it knows tls_server_config and \
                             basic_auth_users).",
                            k.line
                        ),
                    ))
                }
            }
        }
        Ok(cfg)
    }
}

impl Tls {
    fn from_yaml(path: &Path, dir: &Path, v: &Item) -> Result<Self, NvqError> {
        let Node::Map(h) = &v.node else {
            return Err(bad(
                path,
                format!("line {}: tls_server_config needs a mapping.", v.line),
            ));
        };
        let file = |key: &str, v: &Item| -> Result<PathBuf, NvqError> {
            Ok(dir.join(text(path, key, v)?))
        };
        let (mut cert, mut key, mut ca) = (None, None, None);
        let mut client_auth = ClientAuth::None;
        let mut tls13_only = false;
        for (k, v) in h {
            let name = match &k.node {
                Node::Text(t) => t.as_str(),
                _ => "",
            };
            match name {
                "cert_file" => cert = Some(file("cert_file", v)?),
                "key_file" => key = Some(file("key_file", v)?),
                "client_ca_file" => ca = Some(file("client_ca_file", v)?),
                "client_auth_type" => {
                    client_auth = match text(path, "client_auth_type", v)? {
                        "NoClientCert" => ClientAuth::None,
                        "VerifyClientCertIfGiven" => ClientAuth::VerifyIfGiven,
                        "RequireAndVerifyClientCert" => ClientAuth::Require,
                        _ => {
                            return Err(bad(
                                path,
                                format!(
                                    "line {}: client_auth_type must be NoClientCert, VerifyClientCertIfGiven or \
                                     RequireAndVerifyClientCert.",
                                    v.line
                                ),
                            ))
                        }
                    }
                }
                "min_version" => {
                    tls13_only = match text(path, "min_version", v)? {
                        "TLS12" => false,
                        "TLS13" => true,
                        _ => {
                            return Err(bad(
                                path,
                                format!("line {}: min_version must be TLS12 or TLS13.", v.line),
                            ))
                        }
                    }
                }
                _ => {
                    return Err(bad(
                        path,
                        format!(
                            "line {}: a tls_server_config key nvq does not implement (it knows cert_file, \
                             key_file, client_auth_type, client_ca_file, min_version).",
                            k.line
                        ),
                    ))
                }
            }
        }
        let (Some(cert_file), Some(key_file)) = (cert, key) else {
            return Err(bad(
                path,
                format!(
                    "line {}: tls_server_config needs cert_file and key_file.",
                    v.line
                ),
            ));
        };
        if client_auth != ClientAuth::None && ca.is_none() {
            return Err(bad(
                path,
                format!(
                    "line {}: a client_auth_type that verifies clients needs client_ca_file.",
                    v.line
                ),
            ));
        }
        Ok(Tls {
            cert_file,
            key_file,
            client_auth,
            client_ca_file: ca,
            tls13_only,
        })
    }

    /// The rustls server configuration (HTTP/1.1 only). Each PEM file is
    /// read as the config is ([`read_trusted`]); an error says which file
    /// and what is wrong, never a line of it.
    pub fn server_config(&self, config_file: &Path) -> Result<Arc<rustls::ServerConfig>, NvqError> {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let bad = |what: &Path, e: &dyn std::fmt::Display| {
            bad(config_file, format!("{}: {e}", what.display()))
        };
        let read = |p: &Path| read_trusted(p).map_err(|e| self::bad(config_file, e));
        let no_pem = |p: &Path, what: &str| bad(p, &format!("no valid PEM {what} in it."));
        let pem = read(&self.cert_file)?;
        let certs = CertificateDer::pem_slice_iter(&pem)
            .collect::<Result<Vec<_>, _>>()
            .ok()
            .filter(|c| !c.is_empty())
            .ok_or_else(|| no_pem(&self.cert_file, "certificate"))?;
        let key = PrivateKeyDer::from_pem_slice(&read(&self.key_file)?)
            .map_err(|_| no_pem(&self.key_file, "private key"))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let versions: &[&rustls::SupportedProtocolVersion] = if self.tls13_only {
            &[&rustls::version::TLS13]
        } else {
            &[&rustls::version::TLS12, &rustls::version::TLS13]
        };
        let builder = rustls::ServerConfig::builder_with_provider(Arc::clone(&provider))
            .with_protocol_versions(versions)
            .map_err(|e| bad(config_file, &e))?;
        let builder = match (&self.client_ca_file, self.client_auth) {
            (Some(ca), auth) if auth != ClientAuth::None => {
                let mut roots = rustls::RootCertStore::empty();
                let pem = read(ca)?;
                for c in CertificateDer::pem_slice_iter(&pem) {
                    roots
                        .add(c.map_err(|_| no_pem(ca, "certificate"))?)
                        .map_err(|e| bad(ca, &e))?;
                }
                let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                    Arc::new(roots),
                    provider,
                );
                let verifier = if auth == ClientAuth::VerifyIfGiven {
                    verifier.allow_unauthenticated()
                } else {
                    verifier
                };
                builder.with_client_cert_verifier(verifier.build().map_err(|e| bad(ca, &e))?)
            }
            _ => builder.with_no_client_auth(),
        };
        let mut cfg = builder
            .with_single_cert(certs, key)
            .map_err(|e| bad(&self.cert_file, &e))?;
        cfg.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Arc::new(cfg))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<WebConfig, NvqError> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("web.yml");
        std::fs::write(&p, text).unwrap();
        WebConfig::load(&p)
    }

    #[test]
    fn reads_the_toolkit_format() {
        let hash = bcrypt::hash("pw", 4).unwrap();
        let cfg = load(&format!(
            "tls_server_config:\n  cert_file: a.crt\n  key_file: /k/a.key\n  min_version: TLS13\n\
             basic_auth_users:\n  alice: {hash}\n"
        ))
        .unwrap();
        let tls = cfg.tls.unwrap();
        assert!(tls.cert_file.ends_with("a.crt") && tls.cert_file.is_absolute());
        assert_eq!(tls.key_file, PathBuf::from("/k/a.key"));
        assert!(tls.tls13_only);
        assert_eq!(cfg.users, [("alice".to_string(), hash)]);
        assert!(load("").unwrap().tls.is_none());
    }

    #[test]
    fn refuses_what_it_does_not_do() {
        for text in [
            "http_server_config:\n  http2: true\n",
            "tls_server_config:\n  cert_file: a\n",
            "tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites: [x]\n",
            "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: RequireAndVerifyClientCert\n",
            "tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS10\n",
            "basic_auth_users:\n  bob: plain-text\n",
            "- a list\n",
        ] {
            assert!(matches!(load(text), Err(NvqError::Usage(_))), "{text}");
        }
    }
}
