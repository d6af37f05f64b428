//! `mig -lgi`, `-lci`, `-lgip`, `-lcip`: nvidia-smi's boxed tables.
//!
//! Each table has a 16-character name column, as drivers before R575 print
//! it; later drivers widen the name column (and the box) by two characters:
//! rows are formatted with the wider column, headings and rules widened by
//! `widen`, which inserts fill where the name column ends.

use super::printable;
use crate::model::mig::{Gpu, GpuMig, Instance, Profile};
use crate::model::{NvmlCode, Token};
use serde_json::{json, Map, Value};

/// Which listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    /// `-lgi`: GPU instances.
    GpuInstances,
    /// `-lci`: compute instances.
    ComputeInstances,
    /// `-lgip`: GPU instance profiles.
    GpuProfiles,
    /// `-lcip`: compute instance profiles of each GPU instance.
    ComputeProfiles,
}

/// What nvidia-smi prints when no selected GPU is in MIG mode.
pub const NO_MIG: &str = "No MIG-enabled devices found.\n";

/// The first driver branch whose tables have the wider name column.
pub const WIDE_FROM_DRIVER: u32 = 575;

/// The name column's width in the narrow layout.
const NAME_WIDTH: usize = 16;

/// Extra name width in the wide layout.
const WIDEN_BY: usize = 2;

impl Listing {
    /// The table's title, headings (each line without its closing `|`), and
    /// the column at which the name column ends.
    fn header(self) -> (&'static str, &'static [&'static str], usize) {
        match self {
            Listing::GpuInstances => (
                "GPU instances:",
                &[
                    " GPU   Name             Profile  Instance   Placement  ",
                    "                          ID       ID       Start:Size ",
                ],
                23,
            ),
            Listing::GpuProfiles => (
                "GPU instance profiles:",
                &[
                    " GPU   Name             ID    Instances   Memory     P2P    SM    DEC   ENC  ",
                    "                              Free/Total   GiB              CE    JPEG  OFA  ",
                ],
                23,
            ),
            Listing::ComputeProfiles => (
                "Compute instance profiles:",
                &[
                    " GPU     GPU       Name             Profile  Instances   Exclusive       Shared       ",
                    "       Instance                       ID     Free/Total     SM       DEC   ENC   OFA  ",
                    "         ID                                                          CE    JPEG       ",
                ],
                35,
            ),
            Listing::ComputeInstances => (
                "Compute instances:",
                &[
                    " GPU     GPU       Name             Profile   Instance   Placement  ",
                    "       Instance                       ID        ID       Start:Size ",
                    "         ID                                                         ",
                ],
                35,
            ),
        }
    }

    /// What a failed GPU's line says it could not show.
    fn what(self) -> &'static str {
        match self {
            Listing::GpuInstances => "GPU instances",
            Listing::ComputeInstances => "compute instances",
            Listing::GpuProfiles => "GPU instance profiles",
            Listing::ComputeProfiles => "compute instance profiles",
        }
    }
}

/// Insert `WIDEN_BY` copies of the line's fill at byte `at` (a space, or the
/// rule's own character for `+---+` and `|===|` lines).
fn widen(line: &str, at: usize) -> String {
    let fill = match line.as_bytes().get(at) {
        Some(b'-') => '-',
        Some(b'=') => '=',
        _ => ' ',
    };
    let at = at.min(line.len());
    let mut s = String::with_capacity(line.len() + WIDEN_BY);
    s.push_str(&line[..at]);
    s.extend(std::iter::repeat(fill).take(WIDEN_BY));
    s.push_str(&line[at..]);
    s
}

/// GiB with two decimals, from MiB, rounded half to even as C's `%.2f` does
/// with the exact quarter values MIG sizes have.
fn gib(mib: u64) -> String {
    let hundredths = u128::from(mib) * 100;
    let (q, r) = (hundredths / 1024, hundredths % 1024);
    let q = if r > 512 || (r == 512 && q % 2 == 1) {
        q + 1
    } else {
        q
    };
    format!("{}.{:02}", q / 100, q % 100)
}

fn free_total(p: &Profile) -> (String, String) {
    let free = p.free.map_or_else(|_| "-".to_string(), |f| f.to_string());
    (free, p.total.to_string())
}

/// Rows (before widening) of one GPU for `what`.
fn rows(index: u32, mig: &GpuMig, what: Listing, wide: bool) -> Vec<Vec<String>> {
    let GpuMig::Enabled {
        profiles,
        instances,
    } = mig
    else {
        return Vec::new();
    };
    let w = NAME_WIDTH + if wide { WIDEN_BY } else { 0 };
    // Cells right of the name column shift with it; a blank one as well.
    let pad = if wide { WIDEN_BY } else { 0 };
    let placement = |i: &Instance| format!("{:>11}:{:<6}", i.start, i.size);
    match what {
        Listing::GpuInstances => instances
            .iter()
            .map(|g| {
                let i = &g.instance;
                vec![format!(
                    "|{index:>4}  {:<w$}{:>6}{:>9}{}",
                    printable(&i.name),
                    i.profile_id,
                    i.id,
                    placement(i)
                )]
            })
            .collect(),
        Listing::GpuProfiles => profiles
            .iter()
            .map(|p| {
                let (free, total) = free_total(p);
                let e = p.engines;
                let p2p = if p.p2p { "Yes" } else { "No" };
                vec![
                    format!(
                        // The SM count is left-aligned: "No     14     1", "No     114    7".
                        "|{index:>4}  {:<w$}{:>4}{free:>6}/{total:<9}{:<11}{p2p:<7}{:<3}{:>5}{:>6}   ",
                        printable(&p.name),
                        p.id,
                        gib(p.memory_mib),
                        e.sm,
                        e.dec,
                        e.enc
                    ),
                    format!("|{:b$}{:>4}{:>6}{:>6}   ", "", e.ce, e.jpeg, e.ofa, b = 58 + pad),
                ]
            })
            .collect(),
        Listing::ComputeProfiles => instances
            .iter()
            .flat_map(|g| {
                let gi = g.instance.id;
                let full = g.instance.size;
                g.ci_profiles.iter().map(move |p| {
                    let (free, total) = free_total(p);
                    let e = p.engines;
                    // nvidia-smi marks the profile that takes the whole GPU instance.
                    let id = if p.slices == full {
                        format!("{}*", p.id)
                    } else {
                        format!("{} ", p.id)
                    };
                    vec![
                        format!(
                            "|{index:>4}{gi:>7}       {:<w$}{id:>7}{free:>6}/{total:<9}{:>5}{:>9}{:>6}{:>6}   ",
                            printable(&p.name), e.sm, e.dec, e.enc, e.ofa
                        ),
                        format!("|{:b$}{:>6}{:>6}         ", "", e.ce, e.jpeg, b = 65 + pad),
                    ]
                })
            })
            .collect(),
        Listing::ComputeInstances => instances
            .iter()
            .flat_map(|g| {
                let gi = g.instance.id;
                g.compute_instances.iter().map(move |c| {
                    vec![format!(
                        "|{index:>4}{gi:>7}       {:<w$}{:>6}{:>10}{}",
                        printable(&c.name),
                        c.profile_id,
                        c.id,
                        placement(c)
                    )]
                })
            })
            .collect(),
    }
}

/// When no selected GPU is in MIG mode: the first failure's line (what
/// could not be shown, and why), else nvidia-smi's "No MIG-enabled devices".
fn none_enabled(gpus: &[Gpu], what: &str) -> Option<String> {
    if gpus.iter().any(|g| matches!(g.mig, GpuMig::Enabled { .. })) {
        return None;
    }
    Some(
        match gpus.iter().find_map(|g| match g.mig {
            GpuMig::Failed(c) => Some(c),
            _ => None,
        }) {
            Some(code) => format!("Failed to display {what}: {}\n", code.message()),
            None => NO_MIG.to_string(),
        },
    )
}

/// The listing for `gpus` (a driver of `driver_major` or later decides the
/// layout). Failed GPUs get a line of their own after the table.
pub fn render(gpus: &[Gpu], what: Listing, driver_major: u32) -> String {
    if let Some(text) = none_enabled(gpus, what.what()) {
        return text;
    }
    let (title, heads, name_end) = what.header();
    let wide = driver_major >= WIDE_FROM_DRIVER;
    let fit = |l: String| if wide { widen(&l, name_end) } else { l };
    let inner = heads.first().map_or(0, |h| h.len());
    let rule = fit(format!("+{}+", "-".repeat(inner)));
    // The title is padded to the box, not widened inside its text.
    let title = format!("| {title:<w$}|", w = rule.len() - 3);
    let mut out = String::new();
    let mut line = |l: String| {
        out.push_str(&l);
        out.push('\n');
    };
    let entries: Vec<Vec<String>> = gpus
        .iter()
        .flat_map(|g| rows(g.index, &g.mig, what, wide))
        .collect();
    let failed: Vec<String> = gpus
        .iter()
        .filter_map(|g| match g.mig {
            GpuMig::Failed(c) => Some(format!(
                "Failed to display {} of GPU {}: {}",
                what.what(),
                g.index,
                c.message()
            )),
            _ => None,
        })
        .collect();
    if entries.is_empty() {
        let none = match what {
            Listing::GpuInstances => "No GPU instances found: Not Found",
            Listing::ComputeInstances => "No compute instances found: Not Found",
            Listing::GpuProfiles => "No GPU instance profiles found: Not Found",
            Listing::ComputeProfiles => "No compute instance profiles found: Not Found",
        };
        line(none.to_string());
    } else {
        line(rule.clone());
        line(title);
        for h in heads {
            line(fit(format!("|{h}|")));
        }
        line(fit(format!("|{}|", "=".repeat(inner))));
        for entry in entries {
            for l in entry {
                line(format!("{l}|"));
            }
            line(rule.clone());
        }
    }
    for f in failed {
        line(f);
    }
    out
}

// ---- `-lgipp`, `-lcipp`: one line per profile, where its instances may sit.
//
// `-lgipp`'s lines are nvidia-smi's, byte for byte against public outputs
// (`tests/mig/`): "GPU %2d Profile ID %2d Placements: {s,...}:size", with
// "Placement :" for a single one. `-lcipp`'s line has not been seen in a
// public output; it is `-lgipp`'s with the GPU instance's id after the GPU
// ("GI %2d"), unverified.

/// Which placements to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placements {
    /// `-lgipp`: GPU instance profiles.
    Gpu,
    /// `-lcipp`: compute instance profiles of each GPU instance.
    Compute,
}

impl Placements {
    fn what(self) -> &'static str {
        match self {
            Placements::Gpu => "GPU instance profile placements",
            Placements::Compute => "compute instance profile placements",
        }
    }

    fn none(self) -> &'static str {
        match self {
            Placements::Gpu => "No GPU instance profiles found: Not Found",
            Placements::Compute => "No compute instance profiles found: Not Found",
        }
    }
}

/// One profile's line after `prefix` ("GPU  0 " or "GPU  0 GI  1 "), or
/// nothing when it has no placement to show.
fn placement_line(prefix: &str, p: &Profile) -> Option<String> {
    let list = match &p.placements {
        Some(Ok(l)) if !l.is_empty() => l,
        _ => return None,
    };
    let starts: Vec<String> = list.iter().map(|x| x.start.to_string()).collect();
    let word = if list.len() == 1 {
        "Placement "
    } else {
        "Placements"
    };
    Some(format!(
        "{prefix}Profile ID {:>2} {word}: {{{}}}:{}\n",
        p.id,
        starts.join(","),
        list[0].size
    ))
}

/// `-lgipp` / `-lcipp` for `gpus`.
pub fn placements(gpus: &[Gpu], what: Placements) -> String {
    if let Some(text) = none_enabled(gpus, what.what()) {
        return text;
    }
    let mut out = String::new();
    let mut failed = String::new();
    for g in gpus {
        match &g.mig {
            GpuMig::Enabled {
                profiles,
                instances,
            } => match what {
                Placements::Gpu => {
                    let prefix = format!("GPU {:>2} ", g.index);
                    out.extend(profiles.iter().filter_map(|p| placement_line(&prefix, p)));
                }
                Placements::Compute => {
                    for gi in instances {
                        let prefix = format!("GPU {:>2} GI {:>2} ", g.index, gi.instance.id);
                        out.extend(
                            gi.ci_profiles
                                .iter()
                                .filter_map(|p| placement_line(&prefix, p)),
                        );
                    }
                }
            },
            GpuMig::Failed(c) => failed.push_str(&format!(
                "Failed to display {} of GPU {}: {}\n",
                what.what(),
                g.index,
                c.message()
            )),
            GpuMig::Disabled => {}
        }
    }
    if out.is_empty() {
        out = format!("{}\n", what.none());
    }
    out + &failed
}

// ---- `--format=json`: the typed model of what a listing read.

/// A failed value: null, with its reason under the object's `_errors`.
fn json_or<T: Into<Value>>(
    r: Result<T, NvmlCode>,
    key: &str,
    errors: &mut Map<String, Value>,
) -> Value {
    match r {
        Ok(v) => v.into(),
        Err(c) => {
            errors.insert(key.into(), Token::new(c).reason().into());
            Value::Null
        }
    }
}

/// Attach `_errors` when something failed.
fn with_errors(mut o: Value, errors: Map<String, Value>) -> Value {
    if !errors.is_empty() {
        o["_errors"] = Value::Object(errors);
    }
    o
}

fn instance_json(i: &Instance) -> Value {
    json!({
        "id": i.id,
        "profile_id": i.profile_id,
        "profile_name": i.name,
        "placement": {"start": i.start, "size": i.size},
    })
}

/// A profile; GPU instance profiles carry `memory_mib` and `p2p`; the
/// placements appear when they were read (`-lgipp`, `-lcipp`).
fn profile_json(p: &Profile, gpu_instance: bool) -> Value {
    let mut errors = Map::new();
    let e = p.engines;
    let mut o = json!({
        "id": p.id,
        "name": p.name,
        "slices": p.slices,
        "instances": {"free": json_or(p.free, "free", &mut errors), "total": p.total},
        "engines": {"sm": e.sm, "ce": e.ce, "dec": e.dec, "enc": e.enc, "jpeg": e.jpeg, "ofa": e.ofa},
    });
    if gpu_instance {
        o["memory_mib"] = p.memory_mib.into();
        o["p2p"] = p.p2p.into();
    }
    if let Some(r) = &p.placements {
        let list = r.as_ref().map(|l| {
            l.iter()
                .map(|x| json!({"start": x.start, "size": x.size}))
                .collect::<Vec<_>>()
        });
        o["placements"] = json_or(list.map_err(|c| *c), "placements", &mut errors);
    }
    with_errors(o, errors)
}

/// `--format=json` for `what` (`-lgipp` and `-lcipp` are the profile
/// listings with their placements): `{"gpus": [...]}`, each GPU with its
/// `index` and `mig_enabled`, then `gpu_instance_profiles` (`-lgip`) or
/// `gpu_instances` (the others), each GPU instance with its
/// `compute_instances` (`-lci`) or `compute_instance_profiles` (`-lcip`).
pub fn json(gpus: &[Gpu], what: Listing) -> String {
    let gpus: Vec<Value> = gpus
        .iter()
        .map(|g| match &g.mig {
            GpuMig::Disabled => json!({"index": g.index, "mig_enabled": false}),
            GpuMig::Failed(c) => json!({
                "index": g.index,
                "mig_enabled": null,
                "_errors": {"mig": Token::new(*c).reason()},
            }),
            GpuMig::Enabled {
                profiles,
                instances,
            } => {
                let mut o = json!({"index": g.index, "mig_enabled": true});
                if what == Listing::GpuProfiles {
                    let list: Vec<Value> = profiles.iter().map(|p| profile_json(p, true)).collect();
                    o["gpu_instance_profiles"] = list.into();
                    return o;
                }
                let list: Vec<Value> = instances
                    .iter()
                    .map(|gi| {
                        let mut v = instance_json(&gi.instance);
                        match what {
                            Listing::ComputeInstances => {
                                let cis: Vec<Value> =
                                    gi.compute_instances.iter().map(instance_json).collect();
                                v["compute_instances"] = cis.into();
                            }
                            Listing::ComputeProfiles => {
                                let ps: Vec<Value> = gi
                                    .ci_profiles
                                    .iter()
                                    .map(|p| profile_json(p, false))
                                    .collect();
                                v["compute_instance_profiles"] = ps.into();
                            }
                            Listing::GpuInstances | Listing::GpuProfiles => {}
                        }
                        v
                    })
                    .collect();
                o["gpu_instances"] = list.into();
                o
            }
        })
        .collect();
    format!("{}\n", json!({ "gpus": gpus }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::mig::{Engines, GpuInstance};
    use crate::model::NvmlCode;

    fn profile(id: u32, name: &str, slices: u32, mib: u64) -> Profile {
        Profile {
            id,
            name: name.into(),
            slices,
            total: 7,
            free: Ok(0),
            memory_mib: mib,
            p2p: false,
            engines: Engines {
                sm: 14,
                ce: 1,
                ..Engines::default()
            },
            placements: None,
        }
    }

    fn gpu(index: u32) -> Gpu {
        let p = profile(19, "MIG 1g.10gb", 1, 9728);
        let ci = Profile {
            id: 0,
            ..profile(0, "MIG 1g.10gb", 1, 0)
        };
        let inst = Instance {
            id: 9,
            profile_id: 19,
            name: p.name.clone(),
            start: 2,
            size: 1,
        };
        Gpu {
            index,
            mig: GpuMig::Enabled {
                profiles: vec![p],
                instances: vec![GpuInstance {
                    instance: inst.clone(),
                    ci_profiles: vec![ci],
                    compute_instances: vec![Instance {
                        id: 0,
                        profile_id: 0,
                        start: 0,
                        size: 1,
                        ..inst
                    }],
                }],
            },
        }
    }

    /// What `render` prints for `gpus`, which must hold `row`.
    fn render_with(gpus: &[Gpu], what: Listing, driver_major: u32, row: &str) -> String {
        let out = render(gpus, what, driver_major);
        assert!(out.contains(row), "{out}");
        out
    }

    #[test]
    fn every_line_of_a_table_is_as_wide_as_its_rule() {
        for what in [
            Listing::GpuInstances,
            Listing::ComputeInstances,
            Listing::GpuProfiles,
            Listing::ComputeProfiles,
        ] {
            for driver in [535, 580] {
                let out = render(&[gpu(0), gpu(1)], what, driver);
                let width = out.lines().next().map(str::len).unwrap_or(0);
                assert!(width > 50, "{what:?}\n{out}");
                assert!(
                    out.lines().all(|l| l.len() == width),
                    "{what:?} {driver}\n{out}"
                );
            }
        }
    }

    #[test]
    fn gpu_instance_row_and_wide_layout() {
        let narrow = "\n|   0  MIG 1g.10gb         19        9          2:1     |\n";
        render_with(&[gpu(0)], Listing::GpuInstances, 535, narrow);
        let row = "\n|   3  MIG 1g.10gb           19        9          2:1     |\n";
        let wide = render_with(&[gpu(3)], Listing::GpuInstances, 580, row);
        assert!(
            wide.starts_with(&format!("+{}+\n", "-".repeat(57))),
            "{wide}"
        );
    }

    #[test]
    fn a_long_name_fills_the_wide_column() {
        // The start of a row of https://github.com/bigstack-oss/cubecos/issues/312
        // (RTX PRO 6000, `nvidia-smi mig -lgip`, wide layout).
        let mut p = profile(65, "MIG 1g.24gb+me.all", 1, 23680);
        p.total = 1;
        p.free = Ok(1);
        p.engines.sm = 46;
        p.engines.dec = 4;
        let g = Gpu {
            index: 0,
            mig: GpuMig::Enabled {
                profiles: vec![p],
                instances: Vec::new(),
            },
        };
        let row = "\n|   0  MIG 1g.24gb+me.all  65     1/1        23.12      No     46     4";
        render_with(&[g], Listing::GpuProfiles, 580, row);
    }

    #[test]
    fn memory_in_gib() {
        // 23680 MiB, 23.125 GiB: halves round to even, as printf does.
        for (mib, text) in [
            (9728, "9.50"),
            (40192, "39.25"),
            (23680, "23.12"),
            (0, "0.00"),
        ] {
            assert_eq!(gib(mib), text, "{mib} MiB");
        }
    }

    #[test]
    fn no_mig_and_failures() {
        let off = Gpu {
            index: 0,
            mig: GpuMig::Disabled,
        };
        assert_eq!(
            render(std::slice::from_ref(&off), Listing::GpuProfiles, 590),
            NO_MIG
        );
        let lost = Gpu {
            index: 1,
            mig: GpuMig::Failed(NvmlCode::GPU_IS_LOST),
        };
        assert_eq!(
            render(&[off, lost.clone()], Listing::GpuInstances, 590),
            "Failed to display GPU instances: GPU is lost\n"
        );
        let out = render(&[gpu(0), lost], Listing::GpuInstances, 590);
        assert!(
            out.ends_with("+\nFailed to display GPU instances of GPU 1: GPU is lost\n"),
            "{out}"
        );
    }

    #[test]
    fn compute_profile_of_the_whole_instance_is_starred() {
        let row = "|   2      9       MIG 1g.10gb          0*     0/7  ";
        render_with(&[gpu(2)], Listing::ComputeProfiles, 535, row);
    }
}
