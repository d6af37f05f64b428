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

use crate::error::NvqError;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_rustls::rustls;
use yaml_rust2::{Yaml, YamlLoader};

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

fn text<'a>(path: &Path, key: &str, v: &'a Yaml) -> Result<&'a str, NvqError> {
    v.as_str()
        .ok_or_else(|| bad(path, format!("{key} needs a text value.")))
}

impl WebConfig {
    /// Read and check the file.
    pub fn load(path: &Path) -> Result<Self, NvqError> {
        let source = std::fs::read_to_string(path).map_err(|e| bad(path, e))?;
        let docs = YamlLoader::load_from_str(&source).map_err(|e| bad(path, e))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut cfg = WebConfig::default();
        let root = match docs.first() {
            None | Some(Yaml::Null) => return Ok(cfg),
            Some(Yaml::Hash(h)) => h,
            Some(_) => return Err(bad(path, "expected a mapping at the top.")),
        };
        for (k, v) in root {
            match k.as_str().unwrap_or("") {
                "tls_server_config" => cfg.tls = Some(Tls::from_yaml(path, dir, v)?),
                "basic_auth_users" => {
                    let Yaml::Hash(users) = v else {
                        return Err(bad(path, "basic_auth_users needs a mapping of user: bcrypt hash."));
                    };
                    for (user, hash) in users {
                        let user = text(path, "a basic_auth_users name", user)?;
                        let hash = text(path, "a basic_auth_users hash", hash)?;
                        // A hash bcrypt cannot read would refuse everyone.
                        if bcrypt::verify("", hash).is_err() {
                            return Err(bad(path, format!("the hash of user \"{user}\" is not a bcrypt hash.")));
                        }
                        cfg.users.push((user.to_string(), hash.to_string()));
                    }
                }
                other => {
                    return Err(bad(
                        path,
                        format!("\"{other}\" is not a key nvq implements (tls_server_config, basic_auth_users)."),
                    ))
                }
            }
        }
        Ok(cfg)
    }
}

impl Tls {
    fn from_yaml(path: &Path, dir: &Path, v: &Yaml) -> Result<Self, NvqError> {
        let Yaml::Hash(h) = v else {
            return Err(bad(path, "tls_server_config needs a mapping."));
        };
        let file = |key: &str, v: &Yaml| -> Result<PathBuf, NvqError> {
            Ok(dir.join(text(path, key, v)?))
        };
        let (mut cert, mut key, mut ca) = (None, None, None);
        let mut client_auth = ClientAuth::None;
        let mut tls13_only = false;
        for (k, v) in h {
            match k.as_str().unwrap_or("") {
                "cert_file" => cert = Some(file("cert_file", v)?),
                "key_file" => key = Some(file("key_file", v)?),
                "client_ca_file" => ca = Some(file("client_ca_file", v)?),
                "client_auth_type" => {
                    client_auth = match text(path, "client_auth_type", v)? {
                        "NoClientCert" => ClientAuth::None,
                        "VerifyClientCertIfGiven" => ClientAuth::VerifyIfGiven,
                        "RequireAndVerifyClientCert" => ClientAuth::Require,
                        other => {
                            return Err(bad(
                                path,
                                format!(
                                    "client_auth_type \"{other}\" is not supported; use NoClientCert, \
                                     VerifyClientCertIfGiven or RequireAndVerifyClientCert."
                                ),
                            ))
                        }
                    }
                }
                "min_version" => {
                    tls13_only = match text(path, "min_version", v)? {
                        "TLS12" => false,
                        "TLS13" => true,
                        other => {
                            return Err(bad(path, format!("min_version \"{other}\": nvq speaks TLS12 and TLS13.")))
                        }
                    }
                }
                other => {
                    return Err(bad(
                        path,
                        format!(
                            "tls_server_config: \"{other}\" is not a key nvq implements (cert_file, key_file, \
                             client_auth_type, client_ca_file, min_version)."
                        ),
                    ))
                }
            }
        }
        let (Some(cert_file), Some(key_file)) = (cert, key) else {
            return Err(bad(path, "tls_server_config needs cert_file and key_file."));
        };
        if client_auth != ClientAuth::None && ca.is_none() {
            return Err(bad(
                path,
                "a client_auth_type that verifies clients needs client_ca_file.",
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

    /// The rustls server configuration (HTTP/1.1 only).
    pub fn server_config(&self, config_file: &Path) -> Result<Arc<rustls::ServerConfig>, NvqError> {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let bad = |what: &Path, e: &dyn std::fmt::Display| {
            bad(config_file, format!("{}: {e}", what.display()))
        };
        let certs = CertificateDer::pem_file_iter(&self.cert_file)
            .and_then(|it| it.collect::<Result<Vec<_>, _>>())
            .map_err(|e| bad(&self.cert_file, &e))?;
        let key =
            PrivateKeyDer::from_pem_file(&self.key_file).map_err(|e| bad(&self.key_file, &e))?;
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
                for c in CertificateDer::pem_file_iter(ca).map_err(|e| bad(ca, &e))? {
                    roots
                        .add(c.map_err(|e| bad(ca, &e))?)
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
