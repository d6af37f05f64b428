//! `nvlink -s`, `-c`, `-e`: nvidia-smi's text.

use crate::model::nvlink::{GpuLinks, CAPABILITIES, ERROR_COUNTERS};
use crate::model::Token;

/// What nvidia-smi prints under a GPU none of whose links is active.
const ALL_INACTIVE: &str =
    "NVML: Unable to retrieve Nvlink information as all links are inActive\n";

/// Which listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    Status,
    Capabilities,
    Errors,
}

/// MB/s as nvidia-smi writes link speeds: `26.562 GB/s`.
fn speed(mbps: u64) -> String {
    format!("{}.{:03} GB/s", mbps / 1000, mbps % 1000)
}

/// The listing for every GPU.
pub fn render(gpus: &[GpuLinks], what: Listing) -> String {
    let mut out = String::new();
    for g in gpus {
        out.push_str(&format!(
            "GPU {}: {} (UUID: {})\n",
            g.index,
            Token::or_text(&g.name),
            Token::or_text(&g.uuid)
        ));
        if !g.links.iter().any(|l| l.active) {
            out.push_str(ALL_INACTIVE);
            continue;
        }
        for l in &g.links {
            let n = l.link;
            match what {
                Listing::Status if l.active => {
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
            }
        }
    }
    out
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
            links,
        }
    }

    fn link(link: u32, active: bool) -> LinkFacts {
        LinkFacts {
            link,
            active,
            speed_mbps: Ok(25781),
            capabilities: vec![Ok(true), Ok(true), Ok(true), Ok(true), Ok(false), Ok(false)],
            errors: vec![Ok(0), Ok(2), Err(NvmlCode(3))],
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
}
