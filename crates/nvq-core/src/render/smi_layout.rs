//! The summary table's layouts, one per range of driver branches: the one
//! table of layout facts [`render::smi_table`](super::smi_table) reads.
//! Each fact was measured on real `nvidia-smi` output; `docs/compat.md`
//! lists the captures behind each range and how sure each fact is.

/// The banner line: `NVIDIA-SMI <version>`, the driver label and version,
/// and (from 410) the CUDA label and version, each padded to a width.
#[derive(Debug)]
pub struct Banner {
    /// Width of the `NVIDIA-SMI` version field (after `NVIDIA-SMI `).
    pub smi: usize,
    /// `Driver Version: ` (or `KMD Version: ` from 610).
    pub driver_label: &'static str,
    /// Width of the driver version field.
    pub driver: usize,
    /// `CUDA Version: ` (or `CUDA UMD Version: `); `None` before 410, whose
    /// banner has no CUDA field.
    pub cuda_label: Option<&'static str>,
}

/// Where a GPU's name and its persistence mode (Linux) or driver model
/// (Windows) sit in the first cell of its box.
#[derive(Debug)]
pub struct NameTag {
    /// The column the name is padded to (from the end of `"  "` after the index).
    pub name_col: usize,
    /// The tag's width (`On`/`Off`: 3, `WDDM`/`TCC`: 4).
    pub width: usize,
    /// Whether the tag is right-aligned in its width.
    pub right: bool,
}

/// The power cell: `<draw>W / <cap>W`.
#[derive(Debug)]
pub struct Power {
    /// Width the draw (`35W`, `N/A`) is right-aligned in.
    pub draw: usize,
    /// Width the cap (`250W`) is right-aligned in.
    pub cap: usize,
    /// Whether an `N/A` cap stands under the cap's digits, one column
    /// short of the `W` (580 on), rather than right-aligned.
    pub na_under_digits: bool,
}

/// The Processes section.
#[derive(Debug)]
pub struct Processes {
    /// The lines from the title to the column heads, each without its
    /// closing `|` (padded to the table's width when printed).
    pub heads: &'static [&'static str],
    /// Whether rows have the `GI ID`/`CI ID` columns (from 450).
    pub instance_ids: bool,
    /// The 0-based column where the PID ends.
    pub pid_end: usize,
    /// The longest process name printed whole; longer ones keep their last
    /// `name_max - 3` characters after `...`.
    pub name_max: usize,
}

/// The MIG devices section.
#[derive(Debug)]
pub struct MigTable {
    /// Widths of its four cells.
    pub cells: [usize; 4],
    /// The column heads under the title, each without its closing `|`.
    pub heads: [&'static str; 3],
    /// Width the memory value (`13MiB /  9728MiB`) is right-aligned in.
    pub memory: usize,
    /// Width the BAR1 value is right-aligned in.
    pub bar1: usize,
    /// Whether values are printed as the GPU box's (`%7dMiB / %5dMiB`) and
    /// cut to their width with `...` (the 79-column table: a public row
    /// reads `1MiB / 13107...`).
    pub cut: bool,
}

/// One layout of the summary table.
#[derive(Debug)]
pub struct Layout {
    /// Its name in docs and tests.
    pub id: &'static str,
    /// The first driver branch that prints it.
    pub from: u32,
    /// Columns between the outer edges (the table is two wider).
    pub full: usize,
    /// Widths of the GPU boxes' three cells.
    pub gpu_cells: [usize; 3],
    /// The banner.
    pub banner: Banner,
    /// Whether the rule under the banner opens with `|` (before 580) rather than `+`.
    pub open_banner_rule: bool,
    /// The GPU head's first two lines (Linux), without edges' padding.
    pub gpu_heads: [&'static str; 2],
    /// The same on Windows, where the first cell names the driver model.
    pub gpu_heads_windows: [&'static str; 2],
    /// Whether the boxes have the `MIG M.` line (from 450).
    pub mig_row: bool,
    /// The longest GPU name printed whole; longer ones keep their first
    /// `gpu_name_max - 3` characters before `...`.
    pub gpu_name_max: usize,
    /// Name and persistence mode (Linux).
    pub persistence: NameTag,
    /// Name and driver model (Windows).
    pub driver_model: NameTag,
    /// The power cell.
    pub power: Power,
    /// Whether the power cell ends in a space before its `|` (all but 530).
    pub power_pad: bool,
    /// Width of the memory total's number (`/ 16130MiB`).
    pub memory_total: usize,
    /// Spaces between an `N/A` memory cell's value and its edge: one in
    /// the 22-column cell (a public 79-column table of a GRID A100 vGPU),
    /// three in the 24-column one (public 580 tables of H100s in MIG mode).
    pub memory_na_pad: usize,
    /// How many spaces the line after the GPU boxes and after the MIG
    /// devices holds: the table's width up to 545, 89 on 550 to 575's
    /// 91-column table, none (an empty line) from 580.
    pub spacer: usize,
    /// The MIG devices section.
    pub mig: MigTable,
    /// The Processes section.
    pub processes: Processes,
}

const GPU_HEAD_79: [&str; 2] = [
    "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",
    "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |",
];
const GPU_HEAD_79_WINDOWS: [&str; 2] = [
    "| GPU  Name            TCC/WDDM | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
    GPU_HEAD_79[1],
];
const GPU_HEAD_530: [&str; 2] = [
    "| GPU  Name                  Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",
    "| Fan  Temp  Perf            Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |",
];
const GPU_HEAD_530_WINDOWS: [&str; 2] = [
    "| GPU  Name                      TCC/WDDM | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
    GPU_HEAD_530[1],
];
const GPU_HEAD_89: [&str; 2] = [
    "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
    "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |",
];
const GPU_HEAD_89_WINDOWS: [&str; 2] = [
    "| GPU  Name                      TCC/WDDM | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
    GPU_HEAD_89[1],
];
const GPU_HEAD_91: [&str; 2] = [
    "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
    "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
];
const GPU_HEAD_91_WINDOWS: [&str; 2] = [
    "| GPU  Name                  Driver-Model | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
    GPU_HEAD_91[1],
];

const MIG_79: MigTable = MigTable {
    cells: [18, 22, 11, 23],
    heads: [
        "| GPU  GI  CI  MIG |         Memory-Usage |        Vol|         Shared",
        "|      ID  ID  Dev |           BAR1-Usage | SM     Unc| CE  ENC  DEC  OFA  JPG",
        "|                  |                      |        ECC|",
    ],
    memory: 21,
    bar1: 21,
    cut: true,
};
const MIG_89: MigTable = MigTable {
    cells: [18, 32, 11, 23],
    heads: [
        "| GPU  GI  CI  MIG |                   Memory-Usage |        Vol|      Shared",
        "|      ID  ID  Dev |                     BAR1-Usage | SM     Unc| CE ENC DEC OFA JPG",
        "|                  |                                |        ECC|",
    ],
    memory: 30,
    bar1: 30,
    cut: false,
};
const MIG_550: MigTable = MigTable {
    cells: [18, 34, 11, 23],
    heads: [
        "| GPU  GI  CI  MIG |                     Memory-Usage |        Vol|      Shared",
        "|      ID  ID  Dev |                       BAR1-Usage | SM     Unc| CE ENC DEC OFA JPG",
        "|                  |                                  |        ECC|",
    ],
    memory: 30,
    bar1: 32,
    cut: false,
};
const MIG_555: MigTable = MigTable {
    heads: [
        "| GPU  GI  CI  MIG |                     Memory-Usage |        Vol|        Shared",
        "|      ID  ID  Dev |                       BAR1-Usage | SM     Unc| CE ENC  DEC  OFA  JPG",
        "|                  |                                  |        ECC|",
    ],
    ..MIG_550
};
const MIG_580: MigTable = MigTable {
    heads: [
        "| GPU  GI  CI  MIG |              Shared Memory-Usage |        Vol|        Shared",
        "|      ID  ID  Dev |                Shared BAR1-Usage | SM     Unc| CE ENC  DEC  OFA  JPG",
        "|                  |                                  |        ECC|",
    ],
    bar1: 30,
    ..MIG_550
};

const PROCESSES_OLD: &[&str] = &[
    "| Processes:                                                       GPU Memory",
    "|  GPU       PID   Type   Process name                             Usage",
];
const PROCESSES_79: &[&str] = &[
    "| Processes:",
    "|  GPU   GI   CI        PID   Type   Process name                  GPU Memory",
    "|        ID   ID                                                   Usage",
];
const PROCESSES_89: &[&str] = &[
    "| Processes:",
    "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory",
    "|        ID   ID                                                             Usage",
];
const PROCESSES_550: &[&str] = &[
    "| Processes:",
    "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory",
    "|        ID   ID                                                               Usage",
];
const PROCESSES_570: &[&str] = &[
    "| Processes:",
    "|  GPU   GI   CI              PID   Type   Process name                        GPU Memory",
    "|        ID   ID                                                               Usage",
];

const BANNER_79: Banner = Banner {
    smi: 13,
    driver_label: "Driver Version: ",
    driver: 13,
    cuda_label: Some("CUDA Version: "),
};
const BANNER_WIDE: Banner = Banner {
    smi: 23,
    driver_label: "Driver Version: ",
    driver: 13,
    cuda_label: Some("CUDA Version: "),
};

const TAG_79: NameTag = NameTag {
    name_col: 20,
    width: 3,
    right: false,
};
const MODEL_79: NameTag = NameTag {
    name_col: 19,
    width: 4,
    right: true,
};
const TAG_WIDE: NameTag = NameTag {
    name_col: 31,
    width: 3,
    right: false,
};
const MODEL_WIDE: NameTag = NameTag {
    name_col: 29,
    width: 4,
    right: true,
};
const MODEL_89: NameTag = NameTag {
    name_col: 30,
    width: 4,
    right: true,
};
const POWER_79: Power = Power {
    draw: 7,
    cap: 4,
    na_under_digits: false,
};

/// The 79-column table of drivers 450 to 525 (`MIG M.` and instance ids).
const L450: Layout = Layout {
    id: "79-mig",
    from: 450,
    full: 77,
    gpu_cells: [31, 22, 22],
    banner: BANNER_79,
    open_banner_rule: true,
    gpu_heads: GPU_HEAD_79,
    gpu_heads_windows: GPU_HEAD_79_WINDOWS,
    mig_row: true,
    gpu_name_max: 18,
    persistence: TAG_79,
    driver_model: MODEL_79,
    power: POWER_79,
    power_pad: true,
    memory_total: 5,
    memory_na_pad: 1,
    spacer: 79,
    mig: MIG_79,
    processes: Processes {
        heads: PROCESSES_79,
        instance_ids: true,
        pid_end: 26,
        name_max: 28,
    },
};

/// The 89-column table of 535 and 545.
const L535: Layout = Layout {
    id: "89",
    from: 535,
    full: 87,
    gpu_cells: [41, 22, 22],
    banner: BANNER_WIDE,
    open_banner_rule: true,
    gpu_heads: GPU_HEAD_89,
    gpu_heads_windows: GPU_HEAD_89_WINDOWS,
    mig_row: true,
    gpu_name_max: 27,
    persistence: TAG_WIDE,
    driver_model: MODEL_89,
    power: Power {
        draw: 17,
        cap: 4,
        na_under_digits: false,
    },
    power_pad: true,
    memory_total: 5,
    memory_na_pad: 1,
    spacer: 89,
    mig: MIG_89,
    processes: Processes {
        heads: PROCESSES_89,
        instance_ids: true,
        pid_end: 26,
        name_max: 40,
    },
};

/// The 91-column table of 550 to 565.
const L550: Layout = Layout {
    id: "91-550",
    from: 550,
    full: 89,
    gpu_cells: [41, 24, 22],
    banner: Banner {
        smi: 23,
        driver_label: "Driver Version: ",
        driver: 15,
        cuda_label: Some("CUDA Version: "),
    },
    open_banner_rule: true,
    gpu_heads: GPU_HEAD_91,
    gpu_heads_windows: GPU_HEAD_91_WINDOWS,
    mig_row: true,
    gpu_name_max: 27,
    persistence: TAG_WIDE,
    driver_model: MODEL_WIDE,
    power: Power {
        draw: 16,
        cap: 5,
        na_under_digits: true,
    },
    power_pad: true,
    memory_total: 6,
    memory_na_pad: 3,
    spacer: 89,
    mig: MIG_550,
    processes: Processes {
        heads: PROCESSES_550,
        instance_ids: true,
        pid_end: 26,
        name_max: 38,
    },
};

/// Today's table (580 to 595), the layout nvq was first written for.
const L580: Layout = Layout {
    id: "91",
    from: 580,
    open_banner_rule: false,
    spacer: 0,
    mig: MIG_580,
    processes: Processes {
        heads: PROCESSES_570,
        instance_ids: true,
        pid_end: 32,
        name_max: 32,
    },
    ..L550
};

/// Every layout, oldest first: a driver prints the last one whose `from`
/// is not above its branch.
pub const LAYOUTS: &[Layout] = &[
    // Before 410: no CUDA field in the banner, no `MIG M.` line, no
    // instance ids.
    Layout {
        id: "79-no-cuda",
        from: 0,
        banner: Banner {
            smi: 23,
            driver_label: "Driver Version: ",
            driver: 26,
            cuda_label: None,
        },
        ..L410
    },
    L410,
    L450,
    // 530 has a head of its own: the tag and the power cap run into the
    // cell's edge.
    Layout {
        id: "89-530",
        from: 530,
        gpu_heads: GPU_HEAD_530,
        gpu_heads_windows: GPU_HEAD_530_WINDOWS,
        gpu_name_max: 28,
        persistence: NameTag {
            name_col: 31,
            width: 3,
            right: true,
        },
        power: Power {
            draw: 18,
            cap: 4,
            na_under_digits: false,
        },
        power_pad: false,
        ..L535
    },
    L535,
    L550,
    // 555 to 565: the MIG engines' head of 580.
    Layout {
        id: "91-555",
        from: 555,
        mig: MIG_555,
        ..L550
    },
    // 570 and 575: the process columns of 580 on 555's grid.
    Layout {
        id: "91-570",
        from: 570,
        mig: MIG_555,
        processes: Processes {
            heads: PROCESSES_570,
            instance_ids: true,
            pid_end: 32,
            name_max: 32,
        },
        ..L550
    },
    L580,
    // 610 renames the banner's fields.
    Layout {
        id: "91-kmd",
        from: 610,
        banner: Banner {
            smi: 23,
            driver_label: "KMD Version: ",
            driver: 14,
            cuda_label: Some("CUDA UMD Version: "),
        },
        ..L580
    },
];

/// The 79-column table of 410 to 445: the CUDA field, no `MIG M.` line.
const L410: Layout = Layout {
    id: "79",
    from: 410,
    mig_row: false,
    processes: Processes {
        heads: PROCESSES_OLD,
        instance_ids: false,
        pid_end: 15,
        name_max: 41,
    },
    ..L450
};

/// The layout a driver of branch `major` prints; an unknown branch (0)
/// gets today's.
pub fn for_driver(major: u32) -> &'static Layout {
    if major == 0 {
        return &L580;
    }
    LAYOUTS
        .iter()
        .rev()
        .find(|l| l.from <= major)
        .unwrap_or(&L580)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_branch_gets_its_layout() {
        let id = |m| for_driver(m).id;
        assert_eq!(id(396), "79-no-cuda");
        assert_eq!(id(418), "79");
        assert_eq!(id(440), "79");
        assert_eq!(id(450), "79-mig");
        assert_eq!(id(525), "79-mig");
        assert_eq!(id(530), "89-530");
        assert_eq!(id(535), "89");
        assert_eq!(id(545), "89");
        assert_eq!(id(550), "91-550");
        assert_eq!(id(555), "91-555");
        assert_eq!(id(565), "91-555");
        assert_eq!(id(570), "91-570");
        assert_eq!(id(580), "91");
        assert_eq!(id(595), "91");
        assert_eq!(id(610), "91-kmd");
        assert_eq!(id(0), "91");
    }

    #[test]
    fn the_table_is_in_order_and_widths_add_up() {
        assert!(LAYOUTS.windows(2).all(|w| w[0].from < w[1].from));
        for l in LAYOUTS {
            let cells: usize = l.gpu_cells.iter().sum::<usize>() + 2;
            assert_eq!(cells, l.full, "{}", l.id);
            for h in l.gpu_heads.iter().chain(&l.gpu_heads_windows) {
                assert_eq!(h.len(), l.full + 2, "{}: {h:?}", l.id);
            }
            assert!(l.processes.heads.iter().all(|h| h.len() < l.full + 2));
            let mig: usize = l.mig.cells.iter().sum::<usize>() + 3;
            assert_eq!(mig, l.full, "{}", l.id);
            assert!(l.mig.heads.iter().all(|h| h.len() < l.full + 2));
        }
    }
}
