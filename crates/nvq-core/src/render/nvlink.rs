//! `nvlink -s`, `-c`, `-e`, `-p`, `-R`, `-ec`, `-gt`: nvidia-smi's text.

use crate::model::nvlink::{
    GpuLinks, LinkFacts, LinkSupport, Traffic, CAPABILITIES, ERROR_COUNTERS,
};
use crate::model::Token;

/// What nvidia-smi prints under a GPU none of whose links is active.
const ALL_INACTIVE: &str =
    "NVML: Unable to retrieve Nvlink information as all links are inActive\n";

/// Under a GPU without NVLink (an L40S, a GeForce RTX 4080 SUPER).
const NO_NVLINK: &str = "Device does not have or support Nvlink\n";

/// Under a GPU in MIG mode (an H100 and an H200 on 590).
const MIG_MODE: &str = "Nvlink queries are not supported for Devices in MIG mode\n";

/// Which listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    /// `-s`: each link's speed (`26.562 GB/s`), or `<inactive>`.
    Status,
    /// `-c`: each link's capabilities, one line per capability.
    Capabilities,
    /// `-e`: each link's error counters, one line per counter.
    Errors,
    /// `-p`. Unverified: no public output of it seen; its line is `-R`'s
    /// without the far end's link number, on the link's own number.
    PciBusId,
    /// `-R`. As a public capture with inactive links shows (an H100 PCIe
    /// pair, `tests/nvlink/`), nvidia-smi numbers its lines by counting the
    /// active links, not by the links' own numbers. With `-l` the one line
    /// keeps the number it has in the full listing (unverified).
    Remote,
    /// `-ec`. Unverified: no public output of it seen.
    LaneCrc,
    /// `-gt d` / `-gt r`.
    Throughput(Traffic),
}

/// MB/s as nvidia-smi writes link speeds: `26.562 GB/s`.
fn speed(mbps: u64) -> String {
    format!("{}.{:03} GB/s", mbps / 1000, mbps % 1000)
}

/// A traffic counter: `5863784 KiB`, or the reason it is missing.
fn kib(v: &Result<u64, crate::model::NvmlCode>) -> String {
    match v {
        Ok(n) => format!("{n} KiB"),
        Err(c) => Token::new(*c).text(),
    }
}

/// The listing for every GPU.
pub fn render(gpus: &[GpuLinks], what: Listing) -> String {
    let mut out = String::new();
    for g in gpus {
        out.push_str(&super::listing::gpu_line(g.index, &g.name, &g.uuid));
        match g.support {
            LinkSupport::MigMode => {
                out.push_str(MIG_MODE);
                continue;
            }
            LinkSupport::NoNvlink => {
                out.push_str(NO_NVLINK);
                continue;
            }
            LinkSupport::Links => {}
        }
        if !g.any_active {
            out.push_str(ALL_INACTIVE);
            continue;
        }
        for l in &g.links {
            match l.active {
                Err(c) => out.push_str(&format!("\t Link {}: {}\n", l.link, Token::new(c).text())),
                Ok(_) => link_lines(&mut out, l, what),
            }
        }
    }
    out
}

/// The lines of one link whose state is known.
fn link_lines(out: &mut String, l: &LinkFacts, what: Listing) {
    let n = l.link;
    let active = l.is_active();
    match what {
        Listing::Status if active => {
            let v = Token::or_text(&l.speed_mbps.map(speed));
            out.push_str(&format!("\t Link {n}: {v}\n"));
        }
        Listing::Status => out.push_str(&format!("\t Link {n}: <inactive>\n")),
        Listing::Capabilities => {
            for (name, v) in CAPABILITIES.iter().zip(&l.capabilities) {
                out.push_str(&format!("\t Link {n}, {name}: {}\n", Token::or_text(v)));
            }
        }
        Listing::Errors => {
            for (name, v) in ERROR_COUNTERS.iter().zip(&l.errors) {
                out.push_str(&format!("\t Link {n}: {name}: {}\n", Token::or_text(v)));
            }
        }
        Listing::PciBusId if active => {
            out.push_str(&format!(
                "\t Link {n}: {}\n",
                Token::or_text(&l.remote_bus_id)
            ));
        }
        Listing::Remote if active => out.push_str(&format!(
            "\t Link {}: Remote Device {}: Link {}\n",
            l.active_before,
            Token::or_text(&l.remote_bus_id),
            Token::or_text(&l.remote_link)
        )),
        Listing::LaneCrc if active => {
            for (k, v) in l.lane_crc.iter().enumerate() {
                out.push_str(&format!(
                    "\t Link {n}: Lane {k} CRC Errors: {}\n",
                    Token::or_text(v)
                ));
            }
        }
        Listing::Throughput(t) if active => {
            let w = t.word();
            out.push_str(&format!("\t Link {n}: {w} Tx: {}\n", kib(&l.tx_kib)));
            out.push_str(&format!("\t Link {n}: {w} Rx: {}\n", kib(&l.rx_kib)));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::nvlink::LinkFacts;
    use crate::model::NvmlCode;

    fn gpu(links: Vec<LinkFacts>) -> GpuLinks {
        GpuLinks {
            index: 3,
            name: Ok("Tesla V100-SXM2-32GB".into()),
            uuid: Ok("GPU-x".into()),
            any_active: links.iter().any(LinkFacts::is_active),
            support: LinkSupport::Links,
            links,
        }
    }

    #[test]
    fn gpus_without_links_or_in_mig_mode() {
        let mut g = gpu(Vec::new());
        g.support = LinkSupport::NoNvlink;
        let s = render(std::slice::from_ref(&g), Listing::Status);
        assert!(
            s.ends_with(")\nDevice does not have or support Nvlink\n"),
            "{s}"
        );
        g.support = LinkSupport::MigMode;
        let s = render(&[g], Listing::Capabilities);
        assert!(
            s.ends_with(")\nNvlink queries are not supported for Devices in MIG mode\n"),
            "{s}"
        );
    }

    fn link(link: u32, active: bool) -> LinkFacts {
        LinkFacts {
            speed_mbps: Ok(25781),
            capabilities: vec![Ok(true), Ok(true), Ok(true), Ok(true), Ok(false), Ok(false)],
            errors: vec![Ok(0), Ok(2), Err(NvmlCode(3))],
            remote_bus_id: Ok("00000000:D5:00.0".into()),
            remote_link: Ok(7),
            tx_kib: Ok(12),
            rx_kib: Err(NvmlCode(3)),
            lane_crc: vec![Ok(0), Ok(4)],
            ..LinkFacts::new(link, Ok(active))
        }
    }

    #[test]
    fn status_with_an_inactive_link() {
        let g = gpu(vec![link(0, true), link(1, false)]);
        assert_eq!(
            render(&[g], Listing::Status),
            "GPU 3: Tesla V100-SXM2-32GB (UUID: GPU-x)\n\t Link 0: 25.781 GB/s\n\t Link 1: <inactive>\n"
        );
    }

    #[test]
    fn no_active_link() {
        let g = gpu(vec![link(0, false)]);
        assert_eq!(
            render(&[g], Listing::Errors),
            format!("GPU 3: Tesla V100-SXM2-32GB (UUID: GPU-x)\n{ALL_INACTIVE}")
        );
    }

    #[test]
    fn capabilities_and_errors() {
        let c = render(&[gpu(vec![link(0, true)])], Listing::Capabilities);
        assert!(c.contains("\t Link 0, P2P is supported: true\n"), "{c}");
        assert!(c.ends_with("\t Link 0, Link is supported: false\n"), "{c}");
        let e = render(&[gpu(vec![link(0, true)])], Listing::Errors);
        assert!(
            e.ends_with("\t Link 0: Recovery Errors: 2\n\t Link 0: CRC Errors: [N/A]\n"),
            "{e}"
        );
    }

    #[test]
    fn remote_lines_count_active_links() {
        let mut third = link(2, true);
        third.active_before = 1;
        let g = gpu(vec![link(0, true), link(1, false), third]);
        assert_eq!(
            render(&[g], Listing::Remote),
            "GPU 3: Tesla V100-SXM2-32GB (UUID: GPU-x)\n\
             \t Link 0: Remote Device 00000000:D5:00.0: Link 7\n\
             \t Link 1: Remote Device 00000000:D5:00.0: Link 7\n"
        );
        let p = render(
            &[gpu(vec![link(1, false), link(2, true)])],
            Listing::PciBusId,
        );
        assert!(p.ends_with(")\n\t Link 2: 00000000:D5:00.0\n"), "{p}");
    }

    #[test]
    fn throughput_lanes_and_unknown_links() {
        let t = render(
            &[gpu(vec![link(0, true)])],
            Listing::Throughput(Traffic::Raw),
        );
        assert!(
            t.ends_with("\t Link 0: Raw Tx: 12 KiB\n\t Link 0: Raw Rx: [N/A]\n"),
            "{t}"
        );
        let e = render(&[gpu(vec![link(0, true)])], Listing::LaneCrc);
        assert!(
            e.ends_with("\t Link 0: Lane 0 CRC Errors: 0\n\t Link 0: Lane 1 CRC Errors: 4\n"),
            "{e}"
        );
        let mut g = gpu(vec![LinkFacts::new(30, Err(NvmlCode(2)))]);
        g.any_active = true;
        let s = render(&[g], Listing::Status);
        assert!(s.ends_with("\t Link 30: [Invalid Argument]\n"), "{s}");
    }
}
