//! Pascal VOC annotation XML, pulled event by event with `quick-xml` (no DOM): the elements a
//! VOC loader reads (`filename`, `size`, each `object`'s `name`, `bndbox`, `difficult` and
//! `truncated`), kept as the text the file holds, so that the analysis can say what is wrong
//! with a value. Elements at other places (an `object`'s `part`s, `source`, `owner`) are
//! skipped; an element nested too deep, a file cut short or anything the XML parser refuses is
//! a [`XmlError`] with the line and column where it was found.

use quick_xml::events::Event;
use quick_xml::Reader;

/// How deep elements may nest (VOC's are 4 deep; a hostile file could nest millions).
const MAX_DEPTH: usize = 64;
/// The longest text kept of one value (a name, a coordinate); longer ones are cut.
const MAX_TEXT: usize = 256;

/// A VOC annotation as its file holds it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VocDoc {
    /// `<filename>` (the image's file name in `JPEGImages`).
    pub filename: Option<String>,
    /// `<size>`, when the file has one.
    pub size: Option<VocSize>,
    pub objects: Vec<VocObject>,
}

/// `<size>`: the values of `<width>`, `<height>` and `<depth>` as written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VocSize {
    pub width: Option<String>,
    pub height: Option<String>,
    pub depth: Option<String>,
}

/// One `<object>`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VocObject {
    pub name: Option<String>,
    pub bndbox: Option<RawBox>,
    /// `<difficult>` and `<truncated>` as written (`1` flags the object).
    pub difficult: Option<String>,
    pub truncated: Option<String>,
}

/// `<bndbox>`'s four coordinates as written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawBox {
    pub xmin: Option<String>,
    pub ymin: Option<String>,
    pub xmax: Option<String>,
    pub ymax: Option<String>,
}

/// Why the file is not XML a VOC loader reads, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XmlError {
    pub detail: String,
}

/// Whether a flag's text (`<difficult>1</difficult>`) sets it: torchvision and mmdet read
/// `int(text)`, so `1` (and any other non-zero integer) does.
pub fn flag_set(text: Option<&str>) -> bool {
    text.and_then(|t| t.trim().parse::<i64>().ok())
        .is_some_and(|v| v != 0)
}

/// `line:column` (1-based) of byte `offset` in `text`.
fn position(text: &str, offset: usize) -> String {
    let offset = offset.min(text.len());
    let before = &text.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = offset
        - before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1)
        + 1;
    format!("line {line}, column {col}")
}

fn err(text: &str, offset: usize, what: impl std::fmt::Display) -> XmlError {
    XmlError {
        detail: format!("{what} at {}", position(text, offset)),
    }
}

fn push_text(into: &mut String, s: &str) {
    for c in s.chars() {
        if into.len() + c.len_utf8() > MAX_TEXT {
            break;
        }
        into.push(c);
    }
}

/// Where a text value goes, by the path of elements it is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    Filename,
    Width,
    Height,
    Depth,
    Name,
    Difficult,
    Truncated,
    Xmin,
    Ymin,
    Xmax,
    Ymax,
}

fn slot_of(path: &[String]) -> Option<Slot> {
    // path[0] is the root (`annotation`); only its children and their own matter.
    let p: Vec<&str> = path.iter().skip(1).map(String::as_str).collect();
    Some(match p.as_slice() {
        ["filename"] => Slot::Filename,
        ["size", "width"] => Slot::Width,
        ["size", "height"] => Slot::Height,
        ["size", "depth"] => Slot::Depth,
        ["object", "name"] => Slot::Name,
        ["object", "difficult"] => Slot::Difficult,
        ["object", "truncated"] => Slot::Truncated,
        ["object", "bndbox", "xmin"] => Slot::Xmin,
        ["object", "bndbox", "ymin"] => Slot::Ymin,
        ["object", "bndbox", "xmax"] => Slot::Xmax,
        ["object", "bndbox", "ymax"] => Slot::Ymax,
        _ => return None,
    })
}

fn target(doc: &mut VocDoc, slot: Slot) -> Option<&mut Option<String>> {
    let size = || VocSize::default();
    Some(match slot {
        Slot::Filename => &mut doc.filename,
        Slot::Width => &mut doc.size.get_or_insert_with(size).width,
        Slot::Height => &mut doc.size.get_or_insert_with(size).height,
        Slot::Depth => &mut doc.size.get_or_insert_with(size).depth,
        _ => {
            let o = doc.objects.last_mut()?;
            match slot {
                Slot::Name => &mut o.name,
                Slot::Difficult => &mut o.difficult,
                Slot::Truncated => &mut o.truncated,
                _ => {
                    let b = o.bndbox.get_or_insert_with(RawBox::default);
                    match slot {
                        Slot::Xmin => &mut b.xmin,
                        Slot::Ymin => &mut b.ymin,
                        Slot::Xmax => &mut b.xmax,
                        _ => &mut b.ymax,
                    }
                }
            }
        }
    })
}

/// Records that the element at `path` opened (an object, a size, a bndbox exist even when
/// empty) and, for a value element, makes its text present (an empty `<name/>` is `""`).
fn opened(doc: &mut VocDoc, path: &[String]) {
    let p: Vec<&str> = path.iter().skip(1).map(String::as_str).collect();
    match p.as_slice() {
        ["object"] => doc.objects.push(VocObject::default()),
        ["size"] => {
            doc.size.get_or_insert_with(VocSize::default);
        }
        ["object", "bndbox"] => {
            if let Some(o) = doc.objects.last_mut() {
                o.bndbox.get_or_insert_with(RawBox::default);
            }
        }
        _ => {
            if let Some(slot) = slot_of(path) {
                if let Some(t) = target(doc, slot) {
                    t.get_or_insert_with(String::new);
                }
            }
        }
    }
}

fn append(doc: &mut VocDoc, path: &[String], s: &str) {
    if let Some(slot) = slot_of(path) {
        if let Some(t) = target(doc, slot) {
            push_text(t.get_or_insert_with(String::new), s);
        }
    }
}

/// Parses a VOC annotation. Values are trimmed (torchvision strips them; a name with spaces
/// around it is the same class there).
pub fn parse(bytes: &[u8]) -> Result<VocDoc, XmlError> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let ok = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or("");
            return Err(err(ok, ok.len(), "not UTF-8 text"));
        }
    };
    let mut reader = Reader::from_str(text);
    reader.config_mut().trim_text(true);
    let mut doc = VocDoc::default();
    let mut path: Vec<String> = Vec::new();
    let mut seen_root = false;
    loop {
        let at = reader.buffer_position() as usize;
        let event = match reader.read_event() {
            Ok(e) => e,
            Err(e) => return Err(err(text, reader.error_position() as usize, e)),
        };
        match event {
            Event::Start(e) => {
                if path.is_empty() && seen_root {
                    return Err(err(text, at, "a second root element"));
                }
                if path.len() >= MAX_DEPTH {
                    return Err(err(
                        text,
                        at,
                        format!("elements nested deeper than {MAX_DEPTH}"),
                    ));
                }
                seen_root = true;
                path.push(e.local_name().as_ref().to_string());
                opened(&mut doc, &path);
            }
            Event::Empty(e) => {
                if path.is_empty() && seen_root {
                    return Err(err(text, at, "a second root element"));
                }
                seen_root = true;
                path.push(e.local_name().as_ref().to_string());
                opened(&mut doc, &path);
                path.pop();
            }
            Event::End(_) => {
                path.pop();
            }
            Event::Text(t) => {
                if path.is_empty() {
                    return Err(err(text, at, "text outside the root element"));
                }
                append(&mut doc, &path, &t.xml10_content());
            }
            Event::CData(t) => append(&mut doc, &path, &t.xml10_content()),
            Event::GeneralRef(r) => {
                let c = match r.resolve_char_ref() {
                    Ok(Some(c)) => c,
                    Ok(None) => match &*r.clone().into_inner() {
                        "amp" => '&',
                        "lt" => '<',
                        "gt" => '>',
                        "quot" => '"',
                        "apos" => '\'',
                        other => {
                            return Err(err(
                                text,
                                at,
                                format!("undefined entity &{};", clip(other)),
                            ))
                        }
                    },
                    Err(e) => return Err(err(text, at, e)),
                };
                append(&mut doc, &path, c.encode_utf8(&mut [0; 4]));
            }
            Event::Eof => {
                if let Some(open) = path.last() {
                    return Err(err(
                        text,
                        text.len(),
                        format!("the file ends inside <{}> (cut short?)", clip(open)),
                    ));
                }
                if !seen_root {
                    return Err(err(text, text.len(), "no root element"));
                }
                break;
            }
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
    }
    for v in [&mut doc.filename].into_iter().chain(
        doc.size
            .iter_mut()
            .flat_map(|s| [&mut s.width, &mut s.height, &mut s.depth]),
    ) {
        trim(v);
    }
    for o in &mut doc.objects {
        for v in [&mut o.name, &mut o.difficult, &mut o.truncated] {
            trim(v);
        }
        if let Some(b) = &mut o.bndbox {
            for v in [&mut b.xmin, &mut b.ymin, &mut b.xmax, &mut b.ymax] {
                trim(v);
            }
        }
    }
    Ok(doc)
}

fn trim(v: &mut Option<String>) {
    if let Some(s) = v {
        let t = s.trim();
        if t.len() != s.len() {
            *s = t.to_string();
        }
    }
}

fn clip(s: &str) -> String {
    labelguard_core::clip::echo(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"<?xml version="1.0"?>
<annotation>
  <folder>VOC2007</folder>
  <filename>000001.jpg</filename>
  <size><width>353</width><height>500</height><depth>3</depth></size>
  <object>
    <name>dog</name><pose>Left</pose><truncated>1</truncated><difficult>0</difficult>
    <bndbox><xmin>48</xmin><ymin>240</ymin><xmax>195</xmax><ymax>371</ymax></bndbox>
  </object>
  <object>
    <name> person </name><difficult>1</difficult>
    <bndbox><xmin>8</xmin><ymin>12</ymin><xmax>352</xmax><ymax>498</ymax></bndbox>
    <part><name>head</name><bndbox><xmin>1</xmin><ymin>1</ymin><xmax>2</xmax><ymax>2</ymax></bndbox></part>
  </object>
</annotation>
"#;

    #[test]
    fn reads_the_elements_a_loader_reads() {
        let d = parse(GOOD.as_bytes()).unwrap();
        assert_eq!(d.filename.as_deref(), Some("000001.jpg"));
        let s = d.size.unwrap();
        assert_eq!(
            (s.width.as_deref(), s.height.as_deref(), s.depth.as_deref()),
            (Some("353"), Some("500"), Some("3"))
        );
        assert_eq!(d.objects.len(), 2);
        assert_eq!(d.objects[0].name.as_deref(), Some("dog"));
        assert!(flag_set(d.objects[0].truncated.as_deref()));
        assert!(!flag_set(d.objects[0].difficult.as_deref()));
        // Trimmed; the part's name and box do not replace the object's.
        assert_eq!(d.objects[1].name.as_deref(), Some("person"));
        assert!(flag_set(d.objects[1].difficult.as_deref()));
        let b = d.objects[1].bndbox.clone().unwrap();
        assert_eq!(
            (b.xmin.as_deref(), b.ymax.as_deref()),
            (Some("8"), Some("498"))
        );
    }

    #[test]
    fn missing_elements_stay_missing_and_empty_ones_are_empty() {
        let d =
            parse(b"<annotation><object><bndbox/></object><object><name/></object></annotation>")
                .unwrap();
        assert!(d.size.is_none());
        assert_eq!(d.objects[0].name, None);
        assert_eq!(d.objects[0].bndbox, Some(RawBox::default()));
        assert_eq!(d.objects[1].name.as_deref(), Some(""));
        assert_eq!(d.objects[1].bndbox, None);
    }

    #[test]
    fn entities_and_cdata_are_text() {
        let d = parse(b"<a><object><name>a&amp;b&#33;<![CDATA[c]]></name></object></a>").unwrap();
        assert_eq!(d.objects[0].name.as_deref(), Some("a&b!c"));
    }

    #[test]
    fn a_file_cut_short_says_where() {
        let cut = &GOOD[..GOOD.find("<xmax>195").unwrap()];
        let e = parse(cut.as_bytes()).unwrap_err();
        assert!(e.detail.contains("ends inside <bndbox>"), "{e:?}");
        assert!(e.detail.contains("line 8"), "{e:?}");
    }

    #[test]
    fn malformed_xml_is_an_error_with_its_position() {
        let e = parse(b"<annotation>\n<size></width></annotation>").unwrap_err();
        assert!(e.detail.contains("line 2"), "{e:?}");
        assert!(parse(b"   ")
            .unwrap_err()
            .detail
            .contains("no root element"));
        assert!(parse(b"<a/><b/>")
            .unwrap_err()
            .detail
            .contains("second root"));
        assert!(parse(b"<a>&bogus;</a>").is_err());
        assert!(parse(b"<a>\xff</a>").unwrap_err().detail.contains("UTF-8"));
    }

    #[test]
    fn deep_nesting_and_long_text_are_bounded() {
        let deep = "<a>".repeat(100_000);
        assert!(parse(deep.as_bytes())
            .unwrap_err()
            .detail
            .contains("nested deeper"));
        let long = format!(
            "<a><object><name>{}</name></object></a>",
            "x".repeat(100_000)
        );
        let d = parse(long.as_bytes()).unwrap();
        assert_eq!(d.objects[0].name.as_ref().unwrap().len(), MAX_TEXT);
    }
}
