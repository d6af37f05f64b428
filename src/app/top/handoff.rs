//! What `nvq top` hands to `nvq-top` once its options are checked: the
//! plan, the `-i` selection, the NVML library and the nodes of `--hosts`,
//! written as arguments and read back.

use super::options::Plan;
use crate::cli::top::LEAK_AFTER_S;
use crate::tui::state::{MAX_INTERVAL_MS, MIN_INTERVAL_MS};
use nvq_core::error::NvqError;
use std::ffi::OsString;
use std::path::PathBuf;

/// The executable that `nvq top` hands its checked options to (see
/// [`Handoff`]), installed beside nvq or in `../lib/nvq/`.
pub const TOP_EXECUTABLE: &str = "nvq-top";

/// `nvq top` once its options are checked: the plan, the `-i` selection
/// (looked up once NVML is open) and the NVML library (`None`: the
/// system's). `nvq top` hands it to [`TOP_EXECUTABLE`], a program that holds
/// `top`'s code and little else (a third less resident memory than all of
/// nvq), as the arguments [`Handoff::to_args`] writes and
/// [`Handoff::parse`] reads, replacing itself (the same process, terminal
/// and signals); without that executable it runs [`run_checked`](super::run_checked) itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Handoff {
    pub(super) plan: Plan,
    pub(super) id: Option<String>,
    pub(super) lib: Option<PathBuf>,
    /// `--hosts`: the nodes shown instead of this machine's GPUs.
    pub(super) hosts: Option<Nodes>,
}

/// The nodes of `nvq top --hosts`, as handed to [`TOP_EXECUTABLE`]: the
/// entries as named, and how to reach them (file names, never a secret:
/// the other program reads the files, and `$NVQ_HOSTS_PASSWORD` is in its
/// environment).
#[derive(Debug, Clone, PartialEq)]
pub struct Nodes {
    pub(super) entries: Vec<String>,
    pub(super) options: crate::hosts::Options,
}

/// The hand-off's options for [`Nodes::options`], each with its field.
type PathOption = (
    &'static str,
    fn(&mut crate::hosts::Options) -> &mut Option<PathBuf>,
);

const PATH_OPTIONS: [PathOption; 5] = [
    ("--hosts-password-file", |o| &mut o.password_file),
    ("--hosts-bearer-token-file", |o| &mut o.bearer_token_file),
    ("--hosts-ca-file", |o| &mut o.ca_file),
    ("--hosts-cert-file", |o| &mut o.cert_file),
    ("--hosts-key-file", |o| &mut o.key_file),
];

/// What [`TOP_EXECUTABLE`] says when it is not given a hand-off.
const NOT_A_HANDOFF: &str =
    "nvq-top is the program `nvq top` runs; run `nvq top` (see nvq top --help).";

/// The hand-off's plan and `-i` selection, as one JSON object (`--plan`),
/// and with `--hosts` the nodes (their entries hold only ASCII letters,
/// digits and a few signs) and the options that are text.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    plan: Plan,
    id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hosts: Option<WireNodes>,
}

/// [`Nodes`] but for its files, in [`Wire`].
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WireNodes {
    entries: Vec<String>,
    user: Option<String>,
    server_name: Option<String>,
}

impl Handoff {
    /// The arguments of [`TOP_EXECUTABLE`] (after its name): `--plan` and
    /// the plan and selection as JSON (serde_json), then `--nvml-lib` and
    /// the library, and each `--hosts-*-file` and its file: paths, which
    /// may hold any bytes, as arguments of their own.
    pub fn to_args(&self) -> Vec<OsString> {
        let wire = Wire {
            plan: self.plan.clone(),
            id: self.id.clone(),
            hosts: self.hosts.as_ref().map(|n| WireNodes {
                entries: n.entries.clone(),
                user: n.options.user.clone(),
                server_name: n.options.server_name.clone(),
            }),
        };
        // Numbers, booleans and text: serde_json writes them all.
        let json = serde_json::to_string(&wire).unwrap_or_default();
        let mut out: Vec<OsString> = vec!["--plan".into(), json.into()];
        if let Some(lib) = &self.lib {
            out.extend(["--nvml-lib".into(), lib.into()]);
        }
        if let Some(n) = &self.hosts {
            let mut o = n.options.clone();
            for (flag, field) in PATH_OPTIONS {
                if let Some(p) = field(&mut o).take() {
                    out.extend([flag.into(), p.into()]);
                }
            }
        }
        out
    }

    /// Read what [`Handoff::to_args`] wrote, its values in their ranges;
    /// anything else is a usage error.
    pub fn parse(args: &[OsString]) -> Result<Self, NvqError> {
        let bad = || NvqError::Usage(NOT_A_HANDOFF.into());
        let (json, paths) = match args {
            [flag, json, paths @ ..] if flag == "--plan" && paths.len() % 2 == 0 => (json, paths),
            _ => return Err(bad()),
        };
        let wire: Wire = serde_json::from_str(json.to_str().ok_or_else(bad)?).map_err(|_| bad())?;
        let plan = wire.plan;
        let leak_ok = !matches!(plan.leak_after_s, Some(s) if !LEAK_AFTER_S.contains(&s));
        if !(MIN_INTERVAL_MS..=MAX_INTERVAL_MS).contains(&plan.interval_ms) || !leak_ok {
            return Err(bad());
        }
        let mut hosts = match wire.hosts {
            Some(n) if n.entries.is_empty() => return Err(bad()),
            Some(n) => Some(Nodes {
                entries: n.entries,
                options: crate::hosts::Options {
                    user: n.user,
                    server_name: n.server_name,
                    ..crate::hosts::Options::default()
                },
            }),
            None => None,
        };
        let mut lib = None;
        for pair in paths.chunks(2) {
            let [flag, path] = pair else {
                return Err(bad());
            };
            let slot = if flag == "--nvml-lib" {
                &mut lib
            } else {
                let (_, field) = PATH_OPTIONS
                    .iter()
                    .find(|(f, _)| flag == *f)
                    .ok_or_else(bad)?;
                // A node's file without nodes is not a hand-off.
                field(&mut hosts.as_mut().ok_or_else(bad)?.options)
            };
            if slot.replace(PathBuf::from(path)).is_some() {
                return Err(bad());
            }
        }
        Ok(Handoff {
            plan,
            id: wire.id,
            lib,
            hosts,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handoff_reads_back_what_it_wrote_and_nothing_else() {
        let h = Handoff {
            plan: Plan {
                interval_ms: 100,
                once: true,
                leak_after_s: Some(90.5),
            },
            id: Some("0,GPU-1f2e".into()),
            lib: Some(PathBuf::from("/opt/x y/libnvidia-ml.so.1")),
            hosts: Some(Nodes {
                entries: vec!["gpu1".into(), "https://gpu2:9835/nvq".into()],
                options: crate::hosts::Options {
                    user: Some("alice".into()),
                    password_file: Some(PathBuf::from("/etc/nvq/pass word")),
                    ca_file: Some(PathBuf::from("/etc/nvq/ca.pem")),
                    server_name: Some("gpu.example".into()),
                    ..crate::hosts::Options::default()
                },
            }),
        };
        assert_eq!(Handoff::parse(&h.to_args()).ok(), Some(h));
        let plain = Handoff {
            plan: Plan {
                interval_ms: 1000,
                once: false,
                leak_after_s: None,
            },
            id: None,
            lib: None,
            hosts: None,
        };
        assert_eq!(
            plain.to_args(),
            [
                "--plan",
                r#"{"plan":{"interval_ms":1000,"once":false,"leak_after_s":null},"id":null}"#
            ]
            .map(OsString::from)
        );
        assert_eq!(Handoff::parse(&plain.to_args()).ok(), Some(plain));
        let bad = |args: &[&str]| {
            let args: Vec<OsString> = args.iter().map(OsString::from).collect();
            match Handoff::parse(&args) {
                Err(NvqError::Usage(m)) => m == NOT_A_HANDOFF,
                _ => false,
            }
        };
        // No plan, a user's options, values out of range, missing or unknown.
        let plan = |p: &str| format!(r#"{{"plan":{{{p}}},"id":null}}"#);
        let ok = plan(r#""interval_ms":100,"once":false,"leak_after_s":null"#);
        assert!(!bad(&["--plan", &ok]));
        assert!(bad(&[]));
        assert!(bad(&["--interval", "1"]));
        assert!(bad(&[
            "--plan",
            &plan(r#""interval_ms":50,"once":false,"leak_after_s":null"#)
        ]));
        assert!(bad(&[
            "--plan",
            &plan(r#""interval_ms":100,"once":false,"leak_after_s":0"#)
        ]));
        assert!(bad(&[
            "--plan",
            &plan(r#""interval_ms":100,"leak_after_s":null"#)
        ]));
        assert!(bad(&[
            "--plan",
            &plan(r#""interval_ms":100,"once":false,"leak_after_s":null,"x":1"#)
        ]));
        assert!(bad(&["--plan", &ok, "--nvml-lib"]));
        assert!(bad(&["--plan", &ok, "--help"]));
        // A node's file without nodes, a file twice, no node.
        assert!(bad(&["--plan", &ok, "--hosts-ca-file", "/x"]));
        let with_hosts = r#"{"plan":{"interval_ms":100,"once":false,"leak_after_s":null},"id":null,"hosts":{"entries":["a"],"user":null,"server_name":null}}"#;
        assert!(!bad(&["--plan", with_hosts, "--hosts-ca-file", "/x"]));
        assert!(bad(&[
            "--plan",
            with_hosts,
            "--hosts-ca-file",
            "/x",
            "--hosts-ca-file",
            "/y"
        ]));
        let no_node = with_hosts.replace(r#"["a"]"#, "[]");
        assert!(bad(&["--plan", &no_node]));
    }
}
