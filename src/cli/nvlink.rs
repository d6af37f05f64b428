//! `nvlink`: its read-only options, with nvidia-smi's spellings.

/// `nvq nvlink`'s arguments.
#[derive(clap::Args, Debug, Clone, Default)]
#[command(arg_required_else_help = true)]
pub struct NvlinkArgs {
    /// Print each link's speed, or <inactive>.
    #[arg(short = 's', long = "status")]
    pub status: bool,
    /// Print what each link supports (P2P, system memory, atomics, SLI).
    #[arg(short = 'c', long = "capabilities")]
    pub capabilities: bool,
    /// Print each active link's replay, recovery and CRC error counts.
    #[arg(short = 'e', long = "errorcounters")]
    pub errors: bool,
    /// GPUs to show (index, UUID, PCI bus id or serial; comma list allowed).
    #[arg(short = 'i', long = "id", value_name = "ID")]
    pub id: Option<String>,
}

/// `nvlink` options of nvidia-smi that read state but that nvq does not
/// implement yet: refused with exit code 2, never ignored.
pub const NOT_IMPLEMENTED: &[&str] = &[
    "-l",
    "--link",
    "-p",
    "--pcibusid",
    "-R",
    "--remotelinkinfo",
    "-gc",
    "--getcontrol",
    "-g",
    "--getthroughput",
    "-ec",
    "--crcerrorcounters",
    "-info",
    "--info",
];

/// `nvlink` has no spellings clap cannot read.
pub const SPELLINGS: &[(&str, &str)] = &[];

/// `nvlink` options that change the GPU's state: nvq never does.
pub const CHANGES_STATE: &[&str] = &[
    "-sc",
    "--setcontrol",
    "-r",
    "--resetcounters",
    "-re",
    "--reseterrorcounters",
];
