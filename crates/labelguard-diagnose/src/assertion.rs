//! Assertion sites in a line: where a failed `Assertion ... failed` comes from (a CUDA or
//! ROCm kernel, or the host), the kernel's name, and whether two lines differ only in the GPU
//! thread that printed them. Split from [`crate::text`], whose line helpers it uses; every
//! function is linear in the line and total on arbitrary input.

use crate::text::{finders, has};
use memchr::memmem::{Finder, FinderRev};
use std::sync::LazyLock;

finders! {
    ASSERTION = "Assertion";
    // ROCm's device assert (HIP's `__assert_fail`, in ROCm's device library): `%s:%u: %s:
    // Device-side assertion `%s' failed.` (hipified kernels: `.../native/hip/Loss.hip:250:`).
    HIP_ASSERTION = "Device-side assertion `";
    FAILED = " failed";
    BLOCK = "block: [";
    THREAD = "thread: [";
    BLOCK_WORD = "block:";
}
static CU: LazyLock<FinderRev<'static>> = LazyLock::new(|| FinderRev::new(".cu:"));
static CUH: LazyLock<FinderRev<'static>> = LazyLock::new(|| FinderRev::new(".cuh:"));
static HIP: LazyLock<FinderRev<'static>> = LazyLock::new(|| FinderRev::new(".hip:"));

/// Whether a line may hold a failed assertion: CUDA's and the CPU's `Assertion`, ROCm's
/// `Device-side assertion`.
pub fn mentions_assertion(t: &str) -> bool {
    has(&ASSERTION, t) || has(&HIP_ASSERTION, t)
}

/// Whether two raw lines are equal but for the numbers in `block: [..]` and `thread: [..]`: the
/// same kernel assertion printed by another GPU thread.
pub fn same_but_threads(mut a: &[u8], mut b: &[u8]) -> bool {
    let coords = |c: &&u8| c.is_ascii_digit() || **c == b',';
    loop {
        let k = common_prefix(a, b);
        if k == a.len() && k == b.len() {
            return true;
        }
        // The first difference must lie in the numbers right after a `block: [` or `thread: [`:
        // those are skipped in both lines, whatever their lengths.
        let open = k - a[..k].iter().rev().take_while(coords).count();
        let bracket = open > 0
            && a[open - 1] == b'['
            && (a[..open - 1].ends_with(b"block: ") || a[..open - 1].ends_with(b"thread: "));
        if !bracket {
            return false;
        }
        a = &a[open + a[open..].iter().take_while(coords).count()..];
        b = &b[open + b[open..].iter().take_while(coords).count()..];
    }
}

/// The length of the longest common prefix of two byte strings, compared 8 bytes at a time.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n {
        let word = |s: &[u8]| u64::from_le_bytes(s[i..i + 8].try_into().expect("8 bytes"));
        let diff = word(a) ^ word(b);
        if diff != 0 {
            return i + diff.trailing_zeros() as usize / 8;
        }
        i += 8;
    }
    i + a[i..n]
        .iter()
        .zip(&b[i..n])
        .take_while(|(x, y)| x == y)
        .count()
}

/// Whether the group of a line's one assertion `site` (its origin, function and condition, see
/// [`site_origin`]) is the same whatever the numbers that [`same_but_threads`] ignores: no
/// `block: [` or `thread: [` stands before the end of the function or inside the condition.
pub fn key_apart_from_threads(line: &str, site: &Site) -> bool {
    let at = |part: &str| part.as_ptr() as usize - line.as_ptr() as usize;
    let (origin, function) = site_origin(site.prefix);
    let key_end = [origin, function]
        .iter()
        .filter(|p| !p.is_empty())
        .map(|p| at(p) + p.len())
        .max()
        .unwrap_or(0);
    let condition = at(site.prefix) + site.prefix.len()..at(site.condition) + site.condition.len();
    let b = line.as_bytes();
    memchr::memchr_iter(b'[', b)
        .filter(|&i| b[..i].ends_with(b"block: ") || b[..i].ends_with(b"thread: "))
        .all(|i| i >= key_end && !condition.contains(&i))
}

/// One `Assertion `...` failed` occurrence in a line.
#[derive(Debug, PartialEq, Eq)]
pub struct Site<'a> {
    /// The text before `Assertion` (path, line, function, block, thread).
    pub prefix: &'a str,
    pub condition: &'a str,
    /// The prefix looks like a CUDA kernel's (`block: [`, `thread: [`, a `.cu:` path).
    pub device: bool,
    /// The line is a host-side exception (`RuntimeError: Assertion ... failed.  at ...THNN...`).
    pub host: bool,
}

/// Every assertion in a line. Lines from many GPU threads can be glued together, so each
/// occurrence's prefix starts where the previous occurrence ended (and is cut to its last
/// [`MAX_PREFIX`] bytes). One pass over the line: the occurrences of `Assertion` and of ` failed`
/// are walked together.
pub fn assertion_sites(s: &str) -> Vec<Site<'_>> {
    const WORD: usize = "Assertion".len();
    const FAILED_LEN: usize = " failed".len();
    /// A condition is short; a ` failed` further away belongs to another line fragment.
    const MAX_CONDITION: usize = 2048;
    let bytes = s.as_bytes();
    let mut sites = Vec::new();
    let mut seg = 0;
    let mut failed = FAILED.find_iter(bytes).peekable();
    // `Assertion` and ROCm's lower-case `assertion` after `Device-side `, in the line's order.
    let hip = "Device-side ".len();
    let mut at: Vec<usize> = ASSERTION.find_iter(bytes).collect();
    if has(&HIP_ASSERTION, s) {
        at.extend(HIP_ASSERTION.find_iter(bytes).map(|p| p + hip));
        at.sort_unstable();
    }
    for p in at {
        let after = p + WORD;
        if p < seg {
            continue; // inside the previous condition
        }
        let rest = &s[after..];
        if rest.starts_with("Error") || rest.starts_with(" failure") {
            continue;
        }
        while failed.next_if(|&f| f < after).is_some() {}
        let Some(&f) = failed.peek().filter(|&&f| f - after <= MAX_CONDITION) else {
            continue;
        };
        let condition = s[after..f]
            .trim()
            .trim_start_matches('`')
            .trim_end_matches(['`', '\''])
            .trim();
        let prefix = &s[floor_boundary(s, seg.max(p.saturating_sub(MAX_PREFIX)))..p];
        let device = has(&BLOCK, prefix)
            || has(&THREAD, prefix)
            || prefix.ends_with("Device-side ")
            || CU.rfind(prefix.as_bytes()).is_some()
            || CUH.rfind(prefix.as_bytes()).is_some();
        let host = !device && prefix.trim_end().ends_with("Error:");
        sites.push(Site {
            prefix,
            condition,
            device,
            host,
        });
        seg = f + FAILED_LEN;
        if s[seg..].starts_with('.') {
            seg += 1;
        }
    }
    sites
}

/// The longest prefix of an assertion looked at: a kernel's path and signature fit easily.
pub const MAX_PREFIX: usize = 4096;

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Where a kernel assertion comes from: `(file:line, function)` parsed from a site's prefix.
/// `function` is empty for Windows builds, which print none.
pub fn site_origin(prefix: &str) -> (&str, &str) {
    // The last `<file>.cu:<digits>` (or .cuh, or ROCm's hipified .hip) in the prefix.
    let mut best: Option<(usize, usize)> = None;
    for (finder, len) in [(&*CU, 4), (&*CUH, 5), (&*HIP, 5)] {
        let mut hay = prefix.as_bytes();
        while let Some(i) = finder.rfind(hay) {
            let digits = prefix.as_bytes()[i + len..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            if digits > 0 {
                if best.is_none_or(|(b, _)| i > b) {
                    best = Some((i, i + len + digits));
                }
                break;
            }
            hay = &hay[..i];
        }
    }
    let Some((dot, end)) = best else {
        return ("", "");
    };
    let start = prefix[..dot]
        .rfind(['/', '\\', ' ', ']', '`'])
        .map_or(0, |i| i + 1);
    let file = &prefix[start..end];
    let after = prefix[end..].trim_start_matches(':').trim_start();
    let after = after
        .trim_end()
        .strip_suffix("Device-side")
        .unwrap_or(after);
    let function = match BLOCK_WORD.find(after.as_bytes()) {
        Some(b) => after[..b].trim().trim_end_matches(':').trim(),
        None => after.trim().trim_end_matches(':').trim(),
    };
    (file, function)
}

/// A readable kernel name from a printed device function: `void f<T>(int, ...) [with T = float]`
/// becomes `f`; lambdas (`operator()`) and empty names give `None`.
pub fn kernel_name(function: &str) -> Option<String> {
    let f = function.split(" [with ").next().unwrap_or("");
    let mut depth = 0usize;
    let mut plain = String::new();
    for c in f.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            '(' if depth == 0 => break,
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    let name = plain.split_whitespace().last().unwrap_or("");
    let name = name.strip_suffix("::operator").unwrap_or(name);
    if name.is_empty() || name == "operator" {
        None
    } else {
        Some(name.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glued_assertions_split_into_sites() {
        let line = "50/58 [00:51<00:01,  4.35it/s]../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [1,0,0] Assertion `t >= 0 && t < n_classes` failed.../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [2,0,0] Assertion `t >= 0 && t < n_classes` failed.";
        let sites = assertion_sites(line);
        assert_eq!(sites.len(), 2);
        assert!(sites
            .iter()
            .all(|s| s.device && s.condition == "t >= 0 && t < n_classes"));
        assert!(sites[1].prefix.starts_with("../aten"));
        let (file, function) = site_origin(sites[1].prefix);
        assert_eq!(file, "Loss.cu:250");
        assert_eq!(function, "nll_loss_forward_reduce_cuda_kernel_2d");
    }

    #[test]
    fn host_and_foreign_assertions_are_told_apart() {
        let thnn = "RuntimeError: Assertion `cur_target >= 0 && cur_target < n_classes' failed.  at /pytorch/aten/src/THNN/generic/ClassNLLCriterion.c:93";
        let s = &assertion_sites(thnn)[0];
        assert!(s.host && !s.device);
        assert_eq!(s.condition, "cur_target >= 0 && cur_target < n_classes");
        assert!(assertion_sites("AssertionError: Label class 79 exceeds nc=16").is_empty());
        assert!(assertion_sites("Assertion failure 0").is_empty());
        let md = "Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion t >= 0 && t < n_classes failed.";
        assert_eq!(assertion_sites(md)[0].condition, "t >= 0 && t < n_classes");
    }

    #[test]
    fn rocm_device_assertions_are_sites_of_hipified_kernels() {
        let line = "/pytorch/aten/src/ATen/native/hip/Loss.hip:250: void nll_loss_forward_reduce_cuda_kernel_2d(scalar_t *, const int64_t) [scalar_t = float, index_t = long]: Device-side assertion `t >= 0 && t < n_classes' failed.";
        let sites = assertion_sites(line);
        assert_eq!(sites.len(), 1);
        assert!(sites[0].device && !sites[0].host);
        assert_eq!(sites[0].condition, "t >= 0 && t < n_classes");
        let (file, function) = site_origin(sites[0].prefix);
        assert_eq!(file, "Loss.hip:250");
        assert_eq!(
            kernel_name(function).as_deref(),
            Some("nll_loss_forward_reduce_cuda_kernel_2d")
        );
        let glued = format!("{line}{line}");
        assert_eq!(assertion_sites(&glued).len(), 2);
        assert!(mentions_assertion(line));
        assert!(
            assertion_sites("Device-side assertion tracking was not enabled by user.").is_empty()
        );
    }

    #[test]
    fn windows_and_thc_origins() {
        let win = r"C:\actions-runner\_work\pytorch\pytorch\builder\windows\pytorch\aten\src\ATen\native\cuda\IndexKernel.cu:91: block: [26,0,0], thread: [32,0,0] ";
        assert_eq!(site_origin(win), ("IndexKernel.cu:91", ""));
        let thc = "/pytorch/aten/src/THCUNN/ClassNLLCriterion.cu:106: void cunn_ClassNLLCriterion_updateOutput_kernel(Dtype *, Dtype *, Dtype *, long *, Dtype *, int, int, int, int, long) [with Dtype = float, Acctype = float]: block: [0,0,0], thread: [10,0,0] ";
        let (file, f) = site_origin(thc);
        assert_eq!(file, "ClassNLLCriterion.cu:106");
        assert_eq!(
            kernel_name(f).unwrap(),
            "cunn_ClassNLLCriterion_updateOutput_kernel"
        );
        let bce = "Acctype bce_functor<Dtype, Acctype>::operator()(Tuple) [with Tuple = thrust::detail::tuple_of_iterator_references<float &, float &, thrust::null_type>, Dtype = float, Acctype = float]";
        assert_eq!(kernel_name(bce).unwrap(), "bce_functor");
        assert_eq!(kernel_name("operator()"), None);
        assert_eq!(kernel_name(""), None);
    }

    #[test]
    fn lines_of_other_gpu_threads_have_the_same_shape() {
        let a = b"Loss.cu:250: k: block: [0,0,0], thread: [1,0,0] Assertion `t < n` failed.";
        let b = b"Loss.cu:250: k: block: [12,0,0], thread: [255,3,0] Assertion `t < n` failed.";
        assert!(same_but_threads(a, b));
        assert!(!same_but_threads(
            a,
            b"Loss.cu:251: k: block: [0,0,0], thread: [1,0,0] Assertion `t < n` failed."
        ));
        assert!(!same_but_threads(a, &b[..b.len() - 1]));
        assert!(!same_but_threads(b"x[0] < 3", b"x[1] < 3"));
        assert!(same_but_threads(b"", b""));
        assert!(same_but_threads(b"block: []", b"block: [5]"));
        assert!(same_but_threads(
            b"thread: [1,2] a long tail",
            b"thread: [1,23] a long tail"
        ));
        assert!(!same_but_threads(
            b"thread: [1] a long tail",
            b"thread: [1] a long tall"
        ));
        assert!(!same_but_threads(b"thread: [1", b"thread: [1]"));
    }

    #[test]
    fn a_site_key_apart_from_thread_numbers() {
        let kernel =
            "[rank1]:x/Loss.cu:250: k: block: [0,0,0], thread: [1,0,0] Assertion `t < n` failed.";
        let sites = assertion_sites(kernel);
        assert!(key_apart_from_threads(kernel, &sites[0]));
        // The numbers inside the condition of a glued line, or before the function, are part
        // of the site's key.
        let glued = "f(y)Assertion x/Loss.cu:250: k: block: [0,0,0], thread: [1,0,0] Assertion `t < n` failed.";
        let sites = assertion_sites(glued);
        assert_eq!(sites.len(), 1);
        assert!(!key_apart_from_threads(glued, &sites[0]));
        let before = "thread: [1]x/Loss.cu:250: k: Assertion `t < n` failed.";
        assert!(!key_apart_from_threads(before, &assertion_sites(before)[0]));
    }
}
