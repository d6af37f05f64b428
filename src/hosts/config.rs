//! How `--hosts` reaches its nodes: TLS and credentials, as a Prometheus
//! scrape config gives them (`tls_config`, `basic_auth` with a password
//! file, a bearer token file), but from options and files, never with a
//! secret on the command line.
//!
//! Every file named here is read as `--web.config.file`'s are: a regular
//! file of at most 1 MiB that other users cannot write
//! (`serve::web_config::read_trusted`). A password may also come from
//! `$NVQ_HOSTS_PASSWORD`.

use crate::serve::web_config::read_trusted;
use base64::Engine;
use nvq_core::error::NvqError;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_rustls::rustls;

/// The environment variable that may hold the basic-auth password.
pub const PASSWORD_ENV: &str = "NVQ_HOSTS_PASSWORD";

/// The CA bundle used for `https://` nodes when no `--hosts-ca-file` is given.
pub const SYSTEM_CA: &str = "/etc/ssl/certs/ca-certificates.crt";

/// What the options say, before any file is read.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Options {
    pub user: Option<String>,
    pub password_file: Option<PathBuf>,
    pub bearer_token_file: Option<PathBuf>,
    pub ca_file: Option<PathBuf>,
    pub cert_file: Option<PathBuf>,
    pub key_file: Option<PathBuf>,
    pub server_name: Option<String>,
}

/// The credentials sent to every node.
#[derive(Clone, PartialEq)]
pub enum Credentials {
    Basic { user: String, password: String },
    Bearer(String),
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Credentials::Basic { user, .. } => write!(f, "Basic({user}, <secret>)"),
            Credentials::Bearer(_) => f.write_str("Bearer(<secret>)"),
        }
    }
}

impl Credentials {
    /// The `Authorization` header's value.
    pub fn header(&self) -> String {
        match self {
            Credentials::Basic { user, password } => format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
            ),
            Credentials::Bearer(token) => format!("Bearer {token}"),
        }
    }
}

fn bad(option: &str, why: impl std::fmt::Display) -> NvqError {
    NvqError::Usage(format!("{option}: {why}"))
}

/// A secret file's first line, trimmed (a trailing newline is not part of it).
fn secret(option: &str, path: &Path) -> Result<String, NvqError> {
    let bytes = read_trusted(path).map_err(|e| bad(option, e))?;
    let text = String::from_utf8(bytes).map_err(|_| bad(option, "the file is not UTF-8"))?;
    let line = text.lines().next().unwrap_or("").trim().to_string();
    if line.is_empty() || line.chars().any(char::is_control) {
        return Err(bad(
            option,
            "the file must hold the secret on its first line, without control characters",
        ));
    }
    Ok(line)
}

impl Options {
    /// The credentials the options ask for, their files read.
    pub fn credentials(&self) -> Result<Option<Credentials>, NvqError> {
        match (&self.user, &self.bearer_token_file) {
            (Some(_), Some(_)) => Err(bad(
                "--hosts-user",
                "give basic auth or a bearer token, not both",
            )),
            (None, Some(f)) => Ok(Some(Credentials::Bearer(secret(
                "--hosts-bearer-token-file",
                f,
            )?))),
            (Some(user), None) => {
                if user.is_empty() || user.contains(':') || user.chars().any(char::is_control) {
                    return Err(bad(
                        "--hosts-user",
                        "a user name without ':' or control characters",
                    ));
                }
                let password = match &self.password_file {
                    Some(f) => secret("--hosts-password-file", f)?,
                    None => std::env::var(PASSWORD_ENV).map_err(|_| {
                        bad(
                            "--hosts-user",
                            format!("needs --hosts-password-file or ${PASSWORD_ENV}"),
                        )
                    })?,
                };
                Ok(Some(Credentials::Basic {
                    user: user.clone(),
                    password,
                }))
            }
            (None, None) if self.password_file.is_some() => {
                Err(bad("--hosts-password-file", "needs --hosts-user"))
            }
            (None, None) => Ok(None),
        }
    }

    /// The TLS settings for `https://` nodes: the CA bundle (the system's
    /// unless `--hosts-ca-file`), and a client certificate if one is given.
    /// `Ok(None)` when no CA bundle can be found and none was asked for.
    pub fn tls(&self) -> Result<Option<Arc<rustls::ClientConfig>>, NvqError> {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let ca = match &self.ca_file {
            Some(f) => f.clone(),
            None if Path::new(SYSTEM_CA).is_file() => PathBuf::from(SYSTEM_CA),
            None => return Ok(None),
        };
        let pem = read_trusted(&ca).map_err(|e| bad("--hosts-ca-file", e))?;
        let mut roots = rustls::RootCertStore::empty();
        for c in CertificateDer::pem_slice_iter(&pem) {
            let c = c.map_err(|_| bad("--hosts-ca-file", "not a PEM certificate bundle"))?;
            // A bundle may hold a certificate rustls cannot use; the others still count.
            let _ = roots.add(c);
        }
        if roots.is_empty() {
            return Err(bad("--hosts-ca-file", "no usable certificate in it"));
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| bad("--hosts-ca-file", e))?
            .with_root_certificates(roots);
        let config = match (&self.cert_file, &self.key_file) {
            (Some(cert), Some(key)) => {
                let pem = read_trusted(cert).map_err(|e| bad("--hosts-cert-file", e))?;
                let certs = CertificateDer::pem_slice_iter(&pem)
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|_| bad("--hosts-cert-file", "not a PEM certificate"))?;
                let key = PrivateKeyDer::from_pem_slice(
                    &read_trusted(key).map_err(|e| bad("--hosts-key-file", e))?,
                )
                .map_err(|_| bad("--hosts-key-file", "not a PEM private key"))?;
                builder
                    .with_client_auth_cert(certs, key)
                    .map_err(|e| bad("--hosts-cert-file", e))?
            }
            (None, None) => builder.with_no_client_auth(),
            _ => {
                return Err(bad(
                    "--hosts-cert-file",
                    "a client certificate needs both --hosts-cert-file and --hosts-key-file",
                ))
            }
        };
        Ok(Some(Arc::new(config)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_come_from_files_and_never_show() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("pass");
        std::fs::write(&f, "s3cret\n").unwrap();
        let o = Options {
            user: Some("alice".into()),
            password_file: Some(f.clone()),
            ..Options::default()
        };
        let c = o.credentials().unwrap().unwrap();
        assert_eq!(c.header(), "Basic YWxpY2U6czNjcmV0");
        assert!(!format!("{c:?}").contains("s3cret"));
        let o = Options {
            bearer_token_file: Some(f.clone()),
            ..Options::default()
        };
        assert_eq!(o.credentials().unwrap().unwrap().header(), "Bearer s3cret");
        let both = Options {
            user: Some("alice".into()),
            bearer_token_file: Some(f),
            ..Options::default()
        };
        assert!(both.credentials().is_err());
        let colon = Options {
            user: Some("a:b".into()),
            ..Options::default()
        };
        assert!(colon.credentials().is_err());
    }
}
