//! `--hosts` and how to reach the nodes it names (nvq's own options; the
//! `nvidia-smi` personality refuses them). The queries take them, and the
//! short commands after their name too. Secrets come from files or the
//! environment, never from the command line (`hosts::config`).

use std::path::PathBuf;

/// `--hosts` and its connection options.
#[derive(clap::Args, Debug, Clone, Default, PartialEq)]
pub struct HostsArgs {
    /// nvq: read these nodes' GPUs through their `nvq serve` (host, host:port or http(s)://URL), ssh
    /// (ssh://[user@]host[:port]) or a dcgm-exporter's or nvidia_gpu_exporter's metrics (a URL ending in
    /// /metrics); comma list, or @FILE; default $NVQ_HOSTS: mem, ps, busy, stat, wait, top, --query-gpu,
    /// --query-compute-apps.
    #[arg(
        long,
        value_name = "HOSTS",
        global = true,
        help_heading = "Many nodes (nvq)"
    )]
    pub hosts: Option<String>,
    /// nvq: basic-auth user for the nodes (the password from --hosts-password-file or $NVQ_HOSTS_PASSWORD).
    #[arg(
        long,
        value_name = "USER",
        global = true,
        help_heading = "Many nodes (nvq)"
    )]
    pub hosts_user: Option<String>,
    /// nvq: a file whose first line is the basic-auth password.
    #[arg(
        long,
        value_name = "FILE",
        global = true,
        help_heading = "Many nodes (nvq)"
    )]
    pub hosts_password_file: Option<PathBuf>,
    /// nvq: a file whose first line is a bearer token for the nodes.
    #[arg(
        long,
        value_name = "FILE",
        global = true,
        help_heading = "Many nodes (nvq)"
    )]
    pub hosts_bearer_token_file: Option<PathBuf>,
    /// nvq: the CA certificates (PEM) that https:// nodes are checked against (default: the system's).
    #[arg(
        long,
        value_name = "FILE",
        global = true,
        help_heading = "Many nodes (nvq)"
    )]
    pub hosts_ca_file: Option<PathBuf>,
    /// nvq: a client certificate (PEM) for https:// nodes that ask for one.
    #[arg(
        long,
        value_name = "FILE",
        global = true,
        help_heading = "Many nodes (nvq)"
    )]
    pub hosts_cert_file: Option<PathBuf>,
    /// nvq: the private key (PEM) of --hosts-cert-file.
    #[arg(
        long,
        value_name = "FILE",
        global = true,
        help_heading = "Many nodes (nvq)"
    )]
    pub hosts_key_file: Option<PathBuf>,
    /// nvq: the name https:// nodes' certificates must hold, when not the host's own.
    #[arg(
        long,
        value_name = "NAME",
        global = true,
        help_heading = "Many nodes (nvq)"
    )]
    pub hosts_server_name: Option<String>,
}

impl HostsArgs {
    /// Whether any of the options was given: the arguments differ from
    /// none given (so a new option counts without being listed here).
    pub fn any(&self) -> bool {
        *self != Self::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Args, FromArgMatches};

    /// Every option of the group, given alone, counts as given.
    #[test]
    fn any_option_given_counts() {
        let cmd = HostsArgs::augment_args(clap::Command::new("t"));
        let longs: Vec<String> = cmd
            .get_arguments()
            .filter_map(|a| a.get_long().map(str::to_string))
            .collect();
        assert!(longs.len() >= 8, "{longs:?}");
        for long in &longs {
            let m = cmd
                .clone()
                .try_get_matches_from(["t", &format!("--{long}=x")])
                .unwrap();
            let a = HostsArgs::from_arg_matches(&m).unwrap();
            assert!(a.any(), "--{long} alone is not counted");
        }
        let m = cmd.try_get_matches_from(["t"]).unwrap();
        assert!(!HostsArgs::from_arg_matches(&m).unwrap().any());
    }
}
