//! nvq-core's example `memory_used` (`crates/nvq-core/examples/`), run in
//! this process against the simulator's built-in machine: it prints
//! `memory.used` exactly as nvidia-smi (and so nvq) prints it.

use crate::common::{sim_command, sim_lib};
use nvq_core::nvml::LibSource;

#[allow(dead_code)] // its `main` is the example's, not run here
#[path = "../crates/nvq-core/examples/memory_used.rs"]
mod memory_used;

#[test]
fn the_core_example_prints_memory_used_as_nvidia_smi_does() {
    let lib = LibSource::Path(sim_lib());
    let got = memory_used::memory_used(&lib, None).expect("the example reads the simulator");
    let got = String::from_utf8(got).expect("UTF-8");
    let lines: Vec<&str> = got.lines().collect();
    assert_eq!(
        lines.len(),
        2,
        "one line per GPU of the built-in machine: {got:?}"
    );
    for l in &lines {
        let n = l
            .strip_suffix(" MiB")
            .unwrap_or_else(|| panic!("{l:?} lacks nvidia-smi's unit"));
        assert!(
            n.parse::<u64>().is_ok(),
            "{l:?} is not a whole number of MiB"
        );
    }
    let nvq = sim_command(None, &["--query-gpu=memory.used", "--format=csv,noheader"])
        .output()
        .expect("nvq runs");
    assert!(nvq.status.success(), "{nvq:?}");
    assert_eq!(
        got,
        String::from_utf8_lossy(&nvq.stdout),
        "the example and nvq disagree"
    );
    // `-i`'s syntax picks GPUs.
    let one = memory_used::memory_used(&lib, Some("1")).expect("GPU 1");
    assert_eq!(String::from_utf8_lossy(&one), format!("{}\n", lines[1]));
}
