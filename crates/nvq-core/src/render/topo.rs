//! `topo -m`: the matrix as nvidia-smi prints it, and as JSON.

use crate::model::topo::{id_ranges, Level, Link, P2pMatrix, TopoMatrix};
use crate::model::Token;
use serde_json::{json, Map, Value};

/// nvidia-smi's legend under the matrix.
const LEGEND: &str = "\nLegend:\n\n  X    = Self
  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node
  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)
  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)
  PIX  = Connection traversing at most a single PCIe bridge
  NV#  = Connection traversing a bonded set of # NVLinks\n";

/// The name of device `i` (GPUs first, then NICs).
fn name(m: &TopoMatrix, i: usize) -> String {
    match i.checked_sub(m.gpus.len()) {
        None => format!("GPU{}", m.gpus[i].index),
        Some(k) => format!("NIC{k}"),
    }
}

fn cell(l: &Link) -> String {
    match l {
        Link::Itself => " X ".into(),
        other => other.label(),
    }
}

/// nvidia-smi's text. The header is underlined with `ESC[4m` ... `ESC[0m`,
/// which nvidia-smi writes to files and pipes too.
pub fn text(m: &TopoMatrix) -> String {
    let n = m.gpus.len() + m.nics.len();
    let names: Vec<String> = (0..n).map(|i| name(m, i)).collect();
    let mut out = format!(
        "\t\x1b[4m{}\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n",
        names.join("\t")
    );
    for (i, row) in m.links.iter().enumerate() {
        let cells: Vec<String> = row.iter().map(cell).collect();
        out.push_str(&format!("{}\t{}", names[i], cells.join("\t")));
        if let Some(g) = m.gpus.get(i) {
            let list =
                |r: &Result<Vec<u32>, _>| r.as_ref().map(|v| id_ranges(v)).unwrap_or_default();
            let numa_id = g
                .gpu_numa_id
                .as_ref()
                .map(u32::to_string)
                .unwrap_or_else(|_| "N/A".into());
            out.push_str(&format!(
                "\t{}\t{}\t\t{numa_id}",
                list(&g.cpus),
                list(&g.numa_nodes)
            ));
        }
        out.push('\n');
    }
    out.push_str(LEGEND);
    if !m.nics.is_empty() {
        out.push_str("\nNIC Legend:\n\n");
        for (k, nic) in m.nics.iter().enumerate() {
            out.push_str(&format!("  NIC{k}: {}\n", nic.name));
        }
    }
    out
}

/// nvidia-smi's legend under a peer-to-peer matrix.
const P2P_LEGEND: &str = "\nLegend:\n\n  X    = Self
  OK   = Status Ok
  CNS  = Chipset not supported
  GNS  = GPU not supported
  TNS  = Topology not supported
  NS   = Not supported
  DR   = Disabled by regkey
  U    = Unknown\n";

/// `topo -p2p`: nvidia-smi's matrix (each line starts with a space and
/// ends with a tab) and its legend.
pub fn p2p_text(m: &P2pMatrix) -> String {
    let mut out = String::from(" \t");
    for g in &m.gpus {
        out.push_str(&format!("GPU{g}\t"));
    }
    out.push('\n');
    for (g, row) in m.gpus.iter().zip(&m.status) {
        out.push_str(&format!(" GPU{g}\t"));
        for s in row {
            out.push_str(s.label());
            out.push('\t');
        }
        out.push('\n');
    }
    out.push_str(P2P_LEGEND);
    out
}

/// One connection as JSON: its type (`NV`, `PIX`, ... or null), the NVLink
/// count, and `closeness` (0 for NVLink up to 5 for `SYS`) for sorting.
fn link_json(l: &Link) -> Value {
    let closeness = l.rank().map(|(c, _)| c);
    match l {
        Link::NvLink(k) => json!({"type": "NV", "nvlinks": k, "closeness": closeness}),
        Link::Unknown(code) => json!({"type": null, "error": Token::new(*code).reason()}),
        other => json!({"type": other.label(), "closeness": closeness}),
    }
}

/// `--format=json`: one object, `gpus` (index, affinities, links to every
/// other device) and `nics` (name, links). Lists are arrays of numbers; a
/// value that could not be read is null with its reason under `_errors`.
pub fn json(m: &TopoMatrix) -> String {
    let n = m.gpus.len() + m.nics.len();
    let links = |i: usize| -> Map<String, Value> {
        (0..n)
            .filter(|&j| j != i)
            .map(|j| (name(m, j), link_json(&m.links[i][j])))
            .collect()
    };
    let gpus: Vec<Value> = m
        .gpus
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let mut errors = Map::new();
            let mut take = |key: &str, r: Result<Value, crate::model::NvmlCode>| match r {
                Ok(v) => v,
                Err(c) => {
                    errors.insert(key.into(), Token::new(c).reason().into());
                    Value::Null
                }
            };
            let cpus = take("cpu_affinity", g.cpus.clone().map(|v| json!(v)));
            let nodes = take("numa_affinity", g.numa_nodes.clone().map(|v| json!(v)));
            let numa_id = take("gpu_numa_id", g.gpu_numa_id.map(|v| json!(v)));
            let mut o = json!({
                "name": name(m, i),
                "index": g.index,
                "cpu_affinity": cpus,
                "numa_affinity": nodes,
                "gpu_numa_id": numa_id,
                "links": links(i),
            });
            if !errors.is_empty() {
                o["_errors"] = Value::Object(errors);
            }
            o
        })
        .collect();
    let nics: Vec<Value> = m
        .nics
        .iter()
        .enumerate()
        .map(|(k, nic)| json!({"name": name(m, m.gpus.len() + k), "device": nic.name, "links": links(m.gpus.len() + k)}))
        .collect();
    format!("{}\n", json!({"gpus": gpus, "nics": nics}))
}

// ---- `topo -n`, `-p`, `-c`: one sentence each, or a small JSON object.
//
// `-p` and `-c` are nvidia-smi's sentences as public outputs show them
// (`tests/topo/SOURCES.md`); `-n`'s sentence has not been seen in a public
// nvidia-smi output: it follows a clone of nvidia-smi (ppu-smi) and the
// help's level words, and is unverified.

fn id_list(ids: &[u32]) -> String {
    ids.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `topo -n LEVEL -i ID` (unverified wording, see above).
pub fn nearest_text(gpu: u32, level: Level, gpus: &[u32]) -> String {
    format!(
        "Device {gpu} is connected by way of {} to device(s): {}\n",
        level.words(),
        id_list(gpus)
    )
}

/// `topo -p -i ID1,ID2`.
pub fn path_text(from: u32, to: u32, level: Level) -> String {
    format!(
        "Device {from} is connected to device {to} by way of {}.\n",
        level.words()
    )
}

/// `topo -c CPU`: a heading, then the GPUs on a line of their own.
pub fn cpu_text(cpu: u32, gpus: &[u32]) -> String {
    format!(
        "The GPUs that have an affinity with CPU {cpu} are:\n{}\n",
        id_list(gpus)
    )
}

fn level_json(level: Level) -> Value {
    json!({
        "number": level.number(),
        "name": level.name(),
        "link": level.link().label(),
        "closeness": level.link().rank().map(|(c, _)| c),
    })
}

/// `topo -n --format=json`: `{"gpu", "level": {...}, "gpus": [...]}`.
pub fn nearest_json(gpu: u32, level: Level, gpus: &[u32]) -> String {
    format!(
        "{}\n",
        json!({"gpu": gpu, "level": level_json(level), "gpus": gpus})
    )
}

/// `topo -p --format=json`: `{"gpus": [from, to], "level": {...}}`.
pub fn path_json(from: u32, to: u32, level: Level) -> String {
    format!(
        "{}\n",
        json!({"gpus": [from, to], "level": level_json(level)})
    )
}

/// `topo -c --format=json`: `{"cpu", "gpus": [...]}`.
pub fn cpu_json(cpu: u32, gpus: &[u32]) -> String {
    format!("{}\n", json!({"cpu": cpu, "gpus": gpus}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::topo::{GpuPlace, Nic};
    use crate::model::NvmlCode;

    fn two_gpus_one_nic() -> TopoMatrix {
        let g = |index, cpus: Vec<u32>| GpuPlace {
            index,
            cpus: Ok(cpus),
            numa_nodes: Ok(vec![0]),
            gpu_numa_id: Err(NvmlCode(3)),
        };
        TopoMatrix {
            gpus: vec![g(0, (0..24).collect()), g(1, vec![])],
            nics: vec![Nic {
                name: "mlx5_0".into(),
            }],
            links: vec![
                vec![Link::Itself, Link::NvLink(12), Link::Pix],
                vec![Link::NvLink(12), Link::Itself, Link::Sys],
                vec![Link::Pix, Link::Sys, Link::Itself],
            ],
        }
    }

    #[test]
    fn text_layout() {
        let t = text(&two_gpus_one_nic());
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[0],
            "\t\x1b[4mGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m"
        );
        assert_eq!(lines[1], "GPU0\t X \tNV12\tPIX\t0-23\t0\t\tN/A");
        assert_eq!(lines[2], "GPU1\tNV12\t X \tSYS\t\t0\t\tN/A");
        assert_eq!(lines[3], "NIC0\tPIX\tSYS\t X ");
        assert!(
            t.ends_with("NVLinks\n\nNIC Legend:\n\n  NIC0: mlx5_0\n"),
            "{t}"
        );
    }

    #[test]
    fn one_sentence_queries() {
        assert_eq!(
            path_text(0, 1, Level::Multiple),
            "Device 0 is connected to device 1 by way of multiple PCIe switches.\n"
        );
        assert_eq!(
            cpu_text(48, &[0, 1]),
            "The GPUs that have an affinity with CPU 48 are:\n0, 1\n"
        );
        assert_eq!(
            nearest_text(0, Level::System, &[1, 2]),
            "Device 0 is connected by way of an SMP interconnect link between NUMA nodes to device(s): 1, 2\n"
        );
        let v: Value = serde_json::from_str(&path_json(0, 1, Level::Multiple)).unwrap();
        assert_eq!(
            v["level"],
            json!({"number": 2, "name": "multiple", "link": "PXB", "closeness": 2})
        );
    }

    #[test]
    fn json_is_typed() {
        let v: Value = serde_json::from_str(&json(&two_gpus_one_nic())).unwrap();
        assert_eq!(
            v["gpus"][0]["links"]["GPU1"],
            json!({"type": "NV", "nvlinks": 12, "closeness": 0})
        );
        assert_eq!(v["gpus"][0]["links"]["NIC0"]["type"], "PIX");
        assert_eq!(v["gpus"][0]["cpu_affinity"].as_array().unwrap().len(), 24);
        assert_eq!(v["gpus"][0]["gpu_numa_id"], Value::Null);
        assert_eq!(v["gpus"][0]["_errors"]["gpu_numa_id"], "not_supported");
        assert_eq!(v["nics"][0]["device"], "mlx5_0");
    }
}
