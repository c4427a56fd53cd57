//! The analyzer: sees the interesting lines of a log once, in order, and keeps a bounded summary
//! (grouped assertion sites, first evidence of each message kind, a few tracebacks).

use crate::assertion::{self, Site};
use crate::kb::{ExplainId, Kb, Kind};
use crate::model::{Evidence, Frame, LogReport};
use crate::observed::{
    Count, GuardError, Hint, MessageGroup, Observations, Options, SiteGroup, SourceId,
};
use crate::ranks;
use crate::repeat::{QuietShapes, RecentSites, Recorder, Replays};
use crate::seen::Seen;
use crate::text;
use crate::traceback::{classify, TbLine};
use std::collections::HashMap;

mod open_traceback;
mod rank_lines;
mod reports;
use open_traceback::OpenTraceback;
use reports::{guard_code, Dsa};

// Bounds that keep memory constant whatever the log holds.
const MAX_SITES: usize = 256;
const MAX_GROUPS: usize = 64;
const MAX_TRACEBACKS: usize = 16;
const MAX_OPEN_TRACEBACKS: usize = 64;
const MAX_FRAMES: usize = 64;
/// IPython context lines kept per frame.
const MAX_CONTEXT: usize = 2;
/// A traceback that shows this many lines that are neither frames nor code has been cut off.
const MAX_STRAY_LINES: u32 = 50;

/// How many lines after a guard exception may carry its code, hint and fix.
const GUARD_LINES: u8 = 6;

/// The state of one diagnosis.
pub struct Analyzer {
    /// What was seen, for the conclusions.
    pub(crate) obs: Observations,
    // Scratch buffers, reused for every line.
    bytes: Vec<u8>,
    line: String,
    present: Vec<bool>,
    touched: Vec<usize>,
    /// The message signatures by their first needle (those without needles under `usize::MAX`):
    /// a line is checked only against the signatures whose first needle it holds.
    by_first_needle: HashMap<usize, Vec<usize>>,
    /// The signatures that matched the current line, by index.
    candidates: Vec<usize>,
    key: String,
    // What was seen.
    site_index: HashMap<String, usize>,
    open: HashMap<(SourceId, String), OpenTraceback>,
    dsa: Option<Dsa>,
    /// The guard exception whose following lines are being read, and how many may follow.
    guard_lines: Option<(usize, u8)>,
    /// What the line being analysed did, and the lines whose repetitions only count.
    rec: Recorder,
    replays: Replays,
    quiet: QuietShapes,
    /// The last lines, while each was one kernel assertion and nothing else.
    recent: RecentSites,
    /// The rank the current line's prefix names, and how many lines arrived so far.
    line_rank: Option<u32>,
    order: u64,
    /// Bytes of output seen (read or skipped), for `labelguard run` to tell a silent job.
    fed: u64,
}

impl Analyzer {
    pub fn new(opts: Options) -> Analyzer {
        let kb = Kb::get();
        Analyzer {
            obs: Observations::new(kb, opts),
            bytes: Vec::new(),
            line: String::new(),
            present: vec![false; kb.needle_count],
            touched: Vec::new(),
            by_first_needle: by_first_needle(kb),
            candidates: Vec::new(),
            key: String::new(),
            site_index: HashMap::new(),
            open: HashMap::new(),
            dsa: None,
            guard_lines: None,
            rec: Recorder::new(),
            replays: Replays::default(),
            quiet: QuietShapes::new(
                kb.messages
                    .iter()
                    .flat_map(|m| m.needles.iter().map(String::as_str)),
            ),
            recent: RecentSites::default(),
            line_rank: None,
            order: 0,
            fed: 0,
        }
    }

    pub(crate) fn fed(&mut self, bytes: u64) {
        self.fed += bytes;
    }

    /// Bytes of output seen so far, and the rank whose process TorchElastic saw end with an
    /// error (its agent's `failed (exitcode: N)` line or its summary's root cause): what
    /// `labelguard run` watches to end a job that a failed rank left hanging. An error line
    /// alone is not enough: a rank may catch an error, print it and go on.
    pub fn progress(&self) -> (u64, Option<u32>) {
        (self.fed, self.obs.elastic.root_cause().map(|e| e.rank))
    }

    /// Registers an input and returns its id for [`crate::Scanner::new`].
    pub fn add_source(&mut self, name: impl Into<String>) -> SourceId {
        self.obs.sources.push((name.into(), 0, 0));
        SourceId((self.obs.sources.len() - 1) as u16)
    }

    pub(crate) fn source_read(&mut self, src: SourceId, bytes: u64, lines: u64) {
        let s = &mut self.obs.sources[src.0 as usize];
        s.1 = bytes;
        s.2 = lines;
    }

    /// Whether every line matters now (inside a traceback or a DSA report), not only the lines
    /// that contain a skim anchor.
    pub(crate) fn dense(&self) -> bool {
        !self.open.is_empty()
            || self.dsa.is_some()
            || self.guard_lines.is_some()
            || self.obs.elastic.open()
    }

    fn seen(&self, src: SourceId, line_no: u64, text: &str) -> Seen {
        Seen {
            ev: Evidence {
                source: self.obs.sources[src.0 as usize].0.clone(),
                line: line_no,
                text: text::shorten(text),
                count: 1,
                last_line: None,
                rank: self
                    .line_rank
                    .or_else(|| ranks::of_text(text))
                    .or_else(|| self.obs.elastic.current_rank()),
                order: self.order,
            },
            source: src,
        }
    }

    /// Looks at one line (without its terminator).
    /// `prev` is the line before it (see `text::previous_line`; `None` when it is not known:
    /// the first line, a line longer than the window, a piece of a very long line).
    pub(crate) fn line(&mut self, src: SourceId, line_no: u64, raw: &[u8], prev: Option<&[u8]>) {
        if !self.repeat(src, line_no, raw, prev) {
            self.analyse_line(src, line_no, raw, prev);
        }
    }

    /// Analyses one line that [`Analyzer::repeat`] did not count.
    pub(crate) fn analyse_line(
        &mut self,
        src: SourceId,
        line_no: u64,
        raw: &[u8],
        prev: Option<&[u8]>,
    ) {
        let dense = self.dense();
        self.order += 1;
        self.rec.start();
        let mut buf = std::mem::take(&mut self.line);
        let line = text::clean(raw, &mut self.bytes, &mut buf);
        let cleaned = line.as_ptr() != raw.as_ptr();
        let single = self.analyze(src, line_no, line, prev);
        self.line = buf;
        // Where the text differs from the bytes, positions in one are not positions in the other.
        self.rec.threads_apart &= !cleaned;
        if !dense && !self.dense() {
            self.replays.insert(src, raw, &self.rec, single);
            let rec = &self.rec;
            if rec.pure && rec.quiet && !rec.orphan && single.is_none() && !cleaned {
                self.quiet.insert(raw);
            }
        }
        let rec = &self.rec;
        let (orphan, apart) = (rec.orphan, rec.threads_apart);
        self.remember_site(src, raw, single, orphan, apart);
    }

    /// Counts a line that repeats one analysed before, as analysing it would (see `repeat.rs`);
    /// `false` when it must be analysed.
    pub(crate) fn repeat(
        &mut self,
        src: SourceId,
        line_no: u64,
        raw: &[u8],
        prev: Option<&[u8]>,
    ) -> bool {
        if self.dense() {
            return false;
        }
        // A failing kernel prints one line per GPU thread: a line that differs from a recent
        // assertion line only in its block and thread numbers counts into the same group.
        if let Some(group) = self.recent.matching(src, raw) {
            self.obs.sites[group].seen.bump(line_no);
            return true;
        }
        // A line analysed before whose effect was only counting is counted again.
        if let Some(r) = self.replays.get(src, raw) {
            for &c in r.counts.iter() {
                self.obs.count(c, line_no);
            }
            let (orphan, single, apart) = (r.orphan, r.single, r.threads_apart);
            if orphan {
                self.orphan_before(src, line_no, prev);
            }
            self.remember_site(src, raw, single, orphan, apart);
            return true;
        }
        if self.quiet.contains(raw) {
            self.recent.clear();
            return true;
        }
        false
    }

    /// Keeps the line just seen among the recent lone assertion lines, or forgets them.
    fn remember_site(
        &mut self,
        src: SourceId,
        raw: &[u8],
        single: Option<usize>,
        orphan: bool,
        threads_apart: bool,
    ) {
        match single {
            Some(group) if !self.dense() => {
                self.recent.push(src, group, raw, orphan, threads_apart)
            }
            _ => self.recent.clear(),
        }
    }

    /// Analyses one line; returns the assertion group when the line was exactly one assertion
    /// of a CUDA kernel and nothing else.
    fn analyze(
        &mut self,
        src: SourceId,
        line_no: u64,
        full: &str,
        prev: Option<&[u8]>,
    ) -> Option<usize> {
        let (prefix, mut s) = text::split_prefix(full);
        let t = s.trim_start();
        if t.is_empty() {
            return None;
        }
        if self.rank_line(src, line_no, prefix, t, full) {
            return None;
        }
        if self.obs.elastic.open() && text::exception_line(t).is_some() {
            // The failing rank's error inside the summary (from its error file) is indented
            // under `traceback :`: read it as the exception line it is.
            s = t;
        }
        if let Some(code) = text::repl_input(t) {
            if !code.is_empty() {
                self.obs.repl_code = Some(self.seen(src, line_no, code));
                self.rec.impure();
            }
            return None;
        }
        if self.dsa_line(src, line_no, s, t, full) || self.guard_line(t) {
            return None;
        }
        let closes = self.traceback_line(src, line_no, prefix, s, t);
        if closes == Closes::Structural {
            return None;
        }
        // Evidence quotes the whole line, rank prefix included; matching uses the rest.
        let kinds = self.messages(src, line_no, t, full);
        let plain = kinds.is_empty() && closes == Closes::No;
        if let Closes::Exception(tb) = closes {
            self.exception(src, line_no, t, full, tb, kinds);
        } else if let Some((name, _)) = text::exception_line(t) {
            if name.contains("labelguard") {
                self.exception(src, line_no, t, full, None, kinds);
            } else {
                self.rec.orphan = true;
                self.orphan_before(src, line_no, prev);
            }
        }
        if !assertion::mentions_assertion(t) {
            self.rec.quiet = plain;
            return None;
        }
        let sites = assertion::assertion_sites(s);
        let mut groups = sites
            .iter()
            .map(|site| self.site(src, line_no, full, site, None))
            .collect::<Vec<_>>();
        match (plain, groups.pop()) {
            (true, Some(Some(g))) if groups.is_empty() => {
                self.rec.threads_apart = assertion::key_apart_from_threads(full, &sites[0]);
                Some(g)
            }
            _ => None,
        }
    }

    /// Traceback structure. Returns whether the line was a frame/code line, closed a traceback
    /// (its exception line), or neither.
    fn traceback_line(
        &mut self,
        src: SourceId,
        line_no: u64,
        prefix: &str,
        s: &str,
        t: &str,
    ) -> Closes {
        let header = text::TRACEBACK.find(t.as_bytes());
        let unlinked;
        let t = if text::has(&text::LINK, t) {
            unlinked = text::unlink(t);
            unlinked.as_str()
        } else {
            t
        };
        if header.is_none()
            && (self.open.is_empty() || !self.open.contains_key(&(src, prefix.to_string())))
        {
            // A traceback pasted without its header starts at its first frame.
            if self.open.len() >= MAX_OPEN_TRACEBACKS || !text::starts_frame(t) {
                return Closes::No;
            }
            let ipython = !t.starts_with("File \"");
            self.open
                .insert((src, prefix.to_string()), OpenTraceback::new(ipython, true));
            self.rec.impure();
        }
        if let Some(i) = header {
            if self.open.len() < MAX_OPEN_TRACEBACKS
                || self.open.contains_key(&(src, prefix.to_string()))
            {
                // IPython's header starts with the exception's name alone; DataLoader's with
                // "Original"; a header glued to the end of another message is CPython's.
                let before = t[..i].trim_end();
                let ipython = i > 0 && !t.starts_with("Original") && !before.contains(' ');
                self.open.insert(
                    (src, prefix.to_string()),
                    OpenTraceback::new(ipython, false),
                );
                self.rec.impure();
            }
            return Closes::Structural;
        }
        let key = (src, prefix.to_string());
        let Some(tb) = self.open.get_mut(&key) else {
            return Closes::No;
        };
        let indented = s.len() != t.len();
        match classify(t, tb.ipython) {
            TbLine::Frame {
                file,
                line,
                function,
            } => {
                if tb.frames.len() == MAX_FRAMES {
                    tb.frames.pop_front();
                }
                tb.frames.push_back(Frame {
                    file: text::shorten(file),
                    line,
                    function: text::shorten(function),
                    code: None,
                    at: (src.0, line_no),
                    context: Vec::new(),
                });
                tb.expect_code = !tb.ipython;
                return Closes::Structural;
            }
            TbLine::Arrow { line, code } if tb.ipython => {
                if let Some(f) = tb.frames.back_mut() {
                    f.code = Some(text::shorten(code));
                    f.line = f.line.or(line);
                }
                return Closes::Structural;
            }
            _ => {}
        }
        if indented {
            if tb.ipython && tb_is_ipython_context(t) {
                if let Some(f) = tb.frames.back_mut().filter(|f| f.code.is_none()) {
                    if f.context.len() == MAX_CONTEXT {
                        f.context.remove(0);
                    }
                    let code = t.trim_start_matches(|c: char| c.is_ascii_digit()).trim();
                    f.context.push((line_no, text::shorten(code)));
                }
                return Closes::Structural;
            }
            if tb.expect_code {
                if let Some(f) = tb.frames.back_mut() {
                    f.code = Some(text::shorten(t));
                }
                tb.expect_code = false;
            }
            return Closes::Structural;
        }
        if text::exception_line(t).is_some() {
            let tb = self.open.remove(&key).expect("present");
            let index = (self.obs.tracebacks.len() < MAX_TRACEBACKS).then(|| {
                self.obs.tracebacks.push(tb.close());
                self.obs.tracebacks.len() - 1
            });
            return Closes::Exception(index);
        }
        tb.stray += 1;
        if tb.stray > MAX_STRAY_LINES {
            self.open.remove(&key);
        }
        if tb_is_ipython_context(t) {
            return Closes::Structural;
        }
        Closes::No
    }

    /// Matches the message signatures; returns the kinds that matched.
    fn messages(&mut self, src: SourceId, line_no: u64, t: &str, full: &str) -> Vec<(Kind, usize)> {
        let kb = self.obs.kb;
        // Most lines looked at hold no needle: a search for the first one (which skips ahead
        // with the automaton's prefilter) says so sooner than the walk that finds them all.
        if kb.needles.find(t).is_none() {
            return Vec::new();
        }
        for m in kb.needles.find_overlapping_iter(t) {
            let p = m.pattern().as_usize();
            if !self.present[p] {
                self.present[p] = true;
                self.touched.push(p);
            }
        }
        let mut matched = Vec::new();
        if !self.touched.is_empty() {
            // Only the signatures whose first needle is in the line can match (in the order of
            // the knowledge base, as a scan of every signature would find them).
            self.candidates.clear();
            let firsts = self.touched.iter().chain(std::iter::once(&usize::MAX));
            for p in firsts {
                if let Some(list) = self.by_first_needle.get(p) {
                    self.candidates.extend(list);
                }
            }
            self.candidates.sort_unstable();
            for &i in &self.candidates {
                let m = &kb.messages[i];
                if m.needle_ids.iter().all(|&n| self.present[n]) {
                    matched.push((m.kind, i));
                }
            }
            for p in self.touched.drain(..) {
                self.present[p] = false;
            }
        }
        let mut header_done = false;
        for &(kind, i) in &matched {
            let m = &kb.messages[i];
            if let Some(era) = &m.era {
                if !self.obs.eras.contains(era) {
                    self.obs.eras.push(era.clone());
                }
            }
            match kind {
                Kind::DeviceAssert if !header_done => {
                    header_done = true;
                    match &mut self.obs.header {
                        Some(h) => h.bump(line_no),
                        None => self.obs.header = Some(self.seen(src, line_no, full)),
                    }
                    self.rec.count(Count::Header);
                }
                Kind::Async => {
                    match &mut self.obs.async_lines {
                        Some(h) => h.bump(line_no),
                        None => self.obs.async_lines = Some(self.seen(src, line_no, full)),
                    }
                    self.rec.count(Count::Async);
                }
                Kind::Era => self.obs.sync_wording |= m.sync_unless_async,
                Kind::HostError | Kind::CudaError | Kind::Secondary | Kind::Peer => {
                    if kind == Kind::Peer {
                        self.peer_rank(t);
                    }
                    let mut explain = m.explain_id.expect("validated");
                    if let Some(after) = &m.value_after {
                        if let Some(v) = value_after(t, after) {
                            if let Some(b) = m.by_value.iter().find(|b| b.matches(v)) {
                                explain = b.explain_id;
                            }
                        }
                    }
                    self.message_group(Some(kind), explain, src, line_no, t, full);
                    if m.kernel_error {
                        if let Some(g) = self
                            .obs
                            .cuda_errors
                            .iter_mut()
                            .find(|g| g.explain == explain)
                        {
                            g.kernel_error = true;
                        }
                    }
                }
                Kind::Hint => {
                    if !self
                        .obs
                        .hints
                        .iter()
                        .any(|h| h.explain == m.explain_id.unwrap())
                    {
                        let seen = self.seen(src, line_no, full);
                        self.obs.hints.push(Hint {
                            explain: m.explain_id.expect("validated"),
                            applies_to: m.applies_to_ids.clone(),
                            seen,
                            weak: m.weak,
                        });
                    }
                }
                Kind::DeviceAssert | Kind::Wrapper | Kind::Benign => {}
            }
        }
        matched
    }

    /// The groups that message lines of this kind go to; other kinds (and `None`: an exception
    /// the knowledge base does not know) go to the unknown exceptions.
    fn groups(&mut self, kind: Option<Kind>) -> &mut Vec<MessageGroup> {
        self.obs.groups(kind)
    }

    fn message_group(
        &mut self,
        kind: Option<Kind>,
        explain: ExplainId,
        src: SourceId,
        line_no: u64,
        t: &str,
        full: &str,
    ) {
        // A repeated message is counted without building its evidence (the common case of a
        // log that repeats one error line millions of times).
        let short = text::shortened(t);
        let groups = self.groups(kind);
        if let Some(i) = groups
            .iter()
            .position(|g| g.explain == explain && text::is_shortened(&g.text, short))
        {
            groups[i].seen.bump(line_no);
            self.rec.count(Count::Group(kind, i as u32));
            return;
        }
        if groups.len() >= MAX_GROUPS {
            return;
        }
        let text = text::shorten(t);
        let seen = self.seen(src, line_no, full);
        let groups = self.groups(kind);
        groups.push(MessageGroup {
            explain,
            text,
            seen,
            traceback: None,
            kernel_error: false,
        });
        let i = groups.len() - 1;
        self.rec.count(Count::Group(kind, i as u32));
    }

    /// A traceback's exception line (or a guard exception anywhere).
    fn exception(
        &mut self,
        src: SourceId,
        line_no: u64,
        t: &str,
        full: &str,
        tb: Option<usize>,
        kinds: Vec<(Kind, usize)>,
    ) {
        self.rec.impure();
        let text = text::shorten(t);
        // `labelguard.TargetError: Caught TargetError in DataLoader worker process 0.` only wraps
        // the worker's own TargetError, whose traceback follows.
        let wrapper = kinds.iter().any(|(k, _)| *k == Kind::Wrapper);
        if let Some(code) = guard_code(t).filter(|_| !wrapper) {
            let seen = self.seen(src, line_no, full);
            if self.obs.guards.len() < MAX_GROUPS {
                self.obs.guards.push(GuardError {
                    code,
                    text,
                    hint: None,
                    fix: None,
                    seen,
                    traceback: tb,
                });
                self.guard_lines = Some((self.obs.guards.len() - 1, GUARD_LINES));
            }
            return;
        }
        // Attach the traceback to what this line reported; a line unknown to the knowledge
        // base is an unknown exception.
        let mut known = false;
        for (kind, _) in kinds {
            match kind {
                Kind::DeviceAssert => {
                    known = true;
                    if self.obs.header_traceback.is_none() {
                        self.obs.header_traceback = tb;
                    }
                }
                Kind::HostError | Kind::CudaError | Kind::Secondary | Kind::Peer => {
                    known = true;
                    let groups = self.groups(Some(kind));
                    if let Some(g) = groups
                        .iter_mut()
                        .rev()
                        .find(|g| g.text == text && g.traceback.is_none())
                    {
                        g.traceback = tb;
                    }
                }
                Kind::Wrapper | Kind::Benign => known = true,
                Kind::Async | Kind::Era | Kind::Hint => {}
            }
        }
        if !known {
            let unknown = self.obs.kb.unknown_exception;
            self.message_group(None, unknown, src, line_no, t, full);
            if let Some(g) = self.obs.unknown.iter_mut().rev().find(|g| g.text == text) {
                g.traceback = g.traceback.or(tb);
            }
        }
    }

    /// Looks at the line before an exception line outside a traceback, until a source line is
    /// found.
    fn orphan_before(&mut self, src: SourceId, line_no: u64, prev: Option<&[u8]>) {
        if let Some(prev) = prev.filter(|_| self.obs.orphan_code.is_none() && line_no > 1) {
            self.orphan(src, line_no - 1, prev);
        }
    }

    /// The line before an exception line outside a traceback, when it is a source line.
    fn orphan(&mut self, src: SourceId, line_no: u64, prev: &[u8]) {
        // A source line holds a call; cleaning removes bytes and adds none but U+FFFD.
        if memchr::memchr(b'(', prev).is_none() {
            return;
        }
        let mut buf = String::new();
        let line = text::clean(prev, &mut Vec::new(), &mut buf);
        let (_, s) = text::split_prefix(line);
        let code = s.trim();
        if text::looks_like_code(code) {
            self.obs.orphan_code = Some(self.seen(src, line_no, code));
        }
    }

    /// Counts one failing assertion into its site's group, and returns the group.
    fn site(
        &mut self,
        src: SourceId,
        line_no: u64,
        line: &str,
        site: &Site,
        kernel: Option<&str>,
    ) -> Option<usize> {
        if site.host {
            return None; // a host-side assertion message: matched as a message
        }
        let (origin, function) = assertion::site_origin(site.prefix);
        self.key.clear();
        for part in [origin, "|", function, "|", site.condition] {
            self.key.push_str(part);
        }
        if let Some(&g) = self.site_index.get(self.key.as_str()) {
            self.obs.sites[g].seen.bump(line_no);
            self.rec.count(Count::Site(g as u32));
            return Some(g);
        }
        let kb = self.obs.kb;
        let sig = kb.match_assert(site.prefix, site.condition);
        if sig.is_none() && !site.device {
            return None; // not a CUDA kernel's assertion (a C library's, a test's)
        }
        if self.obs.sites.len() >= MAX_SITES {
            return None; // enough kernels to explain the failure; memory stays bounded
        }
        let kernel = kernel
            .map(str::to_string)
            .or_else(|| assertion::kernel_name(function))
            .or_else(|| sig.and_then(|s| s.kernel.clone()))
            .unwrap_or_else(|| {
                if origin.is_empty() {
                    "an unnamed kernel".into()
                } else {
                    origin.to_string()
                }
            });
        let seen = self.seen(src, line_no, line);
        self.site_index
            .insert(self.key.clone(), self.obs.sites.len());
        self.obs.sites.push(SiteGroup {
            explain: sig.map(|s| s.explain_id),
            weak: sig.is_some_and(|s| s.weak),
            kernel,
            condition: text::shorten(site.condition),
            seen,
            ops: sig.map_or_else(Vec::new, |s| s.ops.clone()),
        });
        let g = self.obs.sites.len() - 1;
        self.rec.count(Count::Site(g as u32));
        Some(g)
    }

    /// Ends the analysis: closes open reports and draws the conclusions.
    pub fn finish(mut self) -> LogReport {
        self.finish_dsa();
        self.adopt_headerless();
        crate::conclude::conclude(&self.obs)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Closes {
    No,
    Structural,
    Exception(Option<usize>),
}

/// IPython prints numbered context lines (`   3027 if x:`) around the arrow line.
/// The knowledge base's message signatures indexed by their first needle.
fn by_first_needle(kb: &Kb) -> HashMap<usize, Vec<usize>> {
    let mut index: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, m) in kb.messages.iter().enumerate() {
        let first = m.needle_ids.first().copied().unwrap_or(usize::MAX);
        index.entry(first).or_default().push(i);
    }
    index
}

fn tb_is_ipython_context(t: &str) -> bool {
    t.bytes().next().is_some_and(|c| c.is_ascii_digit()) && t.contains(' ')
}

/// The integer printed right after `after` in `t`.
fn value_after(t: &str, after: &str) -> Option<i64> {
    let i = t.find(after)? + after.len();
    ranks::leading_int(&t[i..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_after_a_marker() {
        assert_eq!(
            value_after("IndexError: Target 255 is out of bounds.", "Target "),
            Some(255)
        );
        assert_eq!(
            value_after("IndexError: Target -1 is out of bounds.", "Target "),
            Some(-1)
        );
        assert_eq!(value_after("Target x", "Target "), None);
        assert_eq!(value_after("Target 99999999999999999999", "Target "), None);
    }
}
