//! Keeping a long-running view's resident memory to what it uses.
//!
//! nvq is one binary for every mode: starting it (the command line's
//! whole definition, the option parser, NVML's loading) touches megabytes of
//! its code and read-only data that `nvq top` never runs again. Those pages
//! stay resident, counted in its RSS, for as long as it runs. After the
//! first frame, [`release_startup_pages`] gives the clean, read-only pages
//! of nvq's own file mappings back (`madvise(MADV_DONTNEED)`: on a private
//! file mapping the next access reads the page again from the page cache,
//! so nothing is lost); what each sample and frame use comes back at once
//! and stays. [`one_malloc_arena`] keeps glibc from giving each thread that
//! allocates an arena of its own.

use std::path::Path;

/// One mapping of `/proc/self/smaps`: where it is, whether it may be
/// written, the file it maps, and its anonymous kB (pages written in this
/// process, copies of the file's: relocations; `Private_Dirty` is no guide,
/// it also counts page-cache pages not yet written to disk).
#[derive(Debug, PartialEq)]
struct Mapping {
    start: usize,
    end: usize,
    writable: bool,
    path: String,
    anonymous_kb: u64,
}

/// The mappings of an smaps text (a mapping's header line is
/// `start-end perms offset dev inode [path]`, then `Key: value kB` lines).
fn mappings(smaps: &str) -> Vec<Mapping> {
    let mut out: Vec<Mapping> = Vec::new();
    for line in smaps.lines() {
        let mut f = line.split_whitespace();
        let Some(first) = f.next() else { continue };
        if let Some((a, b)) = first.split_once('-') {
            let (Ok(start), Ok(end)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
            else {
                continue;
            };
            let perms = f.next().unwrap_or("");
            // offset, device, inode, then the path (which may hold spaces).
            let path = f.nth(3).map(|p| {
                let at = line.find(p).unwrap_or(line.len());
                line[at..].to_string()
            });
            out.push(Mapping {
                start,
                end,
                writable: perms.as_bytes().get(1) == Some(&b'w'),
                path: path.unwrap_or_default(),
                anonymous_kb: 0,
            });
            continue;
        }
        let kb = || {
            f.clone()
                .next()
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0)
        };
        if let (Some(m), "Anonymous:") = (out.last_mut(), first) {
            m.anonymous_kb = kb();
        }
    }
    out
}

/// The ranges of `exe`'s mappings whose pages can be dropped and read
/// again: not writable, no page written in this process (the relocated
/// read-only data is skipped whole).
fn releasable(maps: &[Mapping], exe: &str) -> Vec<(usize, usize)> {
    maps.iter()
        .filter(|m| m.path == exe && !m.writable && m.anonymous_kb == 0)
        .map(|m| (m.start, m.end))
        .collect()
}

/// Give back the resident pages of nvq's own code and read-only data (see
/// the module's note); returns the bytes of the ranges advised. Does
/// nothing where `/proc/self` cannot be read.
pub fn release_startup_pages() -> usize {
    let (Ok(exe), Ok(smaps)) = (
        std::fs::read_link("/proc/self/exe"),
        std::fs::read_to_string("/proc/self/smaps"),
    ) else {
        return 0;
    };
    let Some(exe) = Path::new(&exe).to_str() else {
        return 0;
    };
    let mut released = 0;
    for (start, end) in releasable(&mappings(&smaps), exe) {
        // SAFETY: the range is one whole mapping of the executable's file,
        // private, not writable and with no privately written page (so no
        // relocation or other write lives only in memory): MADV_DONTNEED
        // drops its page-table entries and the next access maps the same
        // bytes again from the file. No Rust reference is invalidated.
        let r =
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED) };
        if r == 0 {
            released += end - start;
        }
    }
    released
}

/// At most one malloc arena (glibc otherwise gives threads that allocate
/// arenas of their own, each with its own resident pages). Call before the
/// threads start.
pub fn one_malloc_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; M_ARENA_MAX is
    // documented to be settable at any time.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMAPS: &str = "\
55d0a0000000-55d0a0400000 r--p 00000000 08:01 1234 /usr/bin/nvq top
Rss:                1104 kB
Private_Dirty:         0 kB
Anonymous:             0 kB
55d0a0400000-55d0a0c00000 r-xp 00400000 08:01 1234 /usr/bin/nvq top
Private_Dirty:      5004 kB
Anonymous:             0 kB
55d0a0c00000-55d0a0d00000 r--p 00c00000 08:01 1234 /usr/bin/nvq top
Private_Dirty:       260 kB
Anonymous:           260 kB
55d0a0d00000-55d0a0d03000 rw-p 00d00000 08:01 1234 /usr/bin/nvq top
Private_Dirty:        12 kB
7f0000000000-7f0000100000 r-xp 00000000 08:01 99 /usr/lib/libc.so.6
Private_Dirty:         0 kB
7f0000200000-7f0000300000 rw-p 00000000 00:00 0
Private_Dirty:       596 kB
";

    #[test]
    fn only_the_executables_clean_read_only_mappings_are_released() {
        let maps = mappings(SMAPS);
        assert_eq!(maps.len(), 6);
        assert_eq!(maps[0].path, "/usr/bin/nvq top");
        assert_eq!(maps[5].path, "");
        assert!(maps[3].writable && !maps[1].writable);
        assert_eq!(
            releasable(&maps, "/usr/bin/nvq top"),
            vec![
                (0x55d0a0000000, 0x55d0a0400000),
                (0x55d0a0400000, 0x55d0a0c00000)
            ]
        );
        assert!(releasable(&maps, "/usr/bin/nvq").is_empty());
    }

    #[test]
    fn releasing_keeps_the_program_running() {
        // This test binary's own pages: dropped, then run again.
        let before = std::hint::black_box(mappings(SMAPS).len());
        assert!(release_startup_pages() > 0);
        assert_eq!(mappings(SMAPS).len(), before);
    }
}
