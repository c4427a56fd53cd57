//! End to end: a VOCdevkit/VOC2007-like detection tree (Annotations, JPEGImages with real
//! image headers, ImageSets/Main) scanned through the library API, with planted defects each
//! found where they are, and a clean control without findings.

mod common;

use common::{classes, opts, scan};
use labelguard_formats::fixtures::*;
use labelguard_scan::config::Overrides;
use std::collections::BTreeSet;

fn codes_of(report: &labelguard_scan::report::ScanReport, file: &str) -> BTreeSet<String> {
    report
        .files
        .iter()
        .filter(|f| f.path.ends_with(file))
        .flat_map(|f| f.findings.iter().map(|x| x.finding.code.to_string()))
        .collect()
}

fn set(codes: &[&str]) -> BTreeSet<String> {
    codes.iter().map(|c| c.to_string()).collect()
}

#[test]
fn a_clean_voc2007_tree_has_no_findings() {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<(String, Vec<u8>)> = (1..=6)
        .map(|i| {
            let name = ["dog", "cat", "person", "car", "bird", "aeroplane"][i % 6];
            (
                format!("{i:06}"),
                voc_annotation(
                    &format!("{i:06}.jpg"),
                    Some((320, 240)),
                    &[
                        voc_obj(name, [1, 1, 320, 240]),
                        voc_obj("person", [10, 20, 100, 200]),
                    ],
                ),
            )
        })
        .collect();
    let refs: Vec<(&str, Vec<u8>)> = files.iter().map(|(s, x)| (s.as_str(), x.clone())).collect();
    voc_detection_tree(dir.path(), &refs, 320, 240);
    let report = scan(dir.path(), &opts(Overrides::default()));
    let all: Vec<String> = report
        .all_findings()
        .map(|f| format!("{}: {}", f.finding.code, f.finding.message))
        .collect();
    // The 20 VOC classes are inferred, not given: the ones no file uses are no finding.
    assert!(all.is_empty(), "{all:?}");
    assert_eq!(report.summary.files_scanned, 6);
    assert_eq!(report.summary.elements, 12);
    assert_eq!(report.summary.bad_elements, 0);
    assert_eq!(report.histogram.unit, "objects");
    // torchvision: person is class 15 of the preset's list, background 0.
    let person = &report.histogram.classes[&15];
    assert_eq!((person.name.as_deref(), person.count), (Some("person"), 7));
    assert!(person.splits.contains_key("train"));
}

#[test]
fn planted_defects_are_each_found_in_their_file() {
    let dir = tempfile::tempdir().unwrap();
    let good = voc_annotation(
        "000001.jpg",
        Some((320, 240)),
        &[voc_obj("dog", [5, 5, 100, 100])],
    );
    let typo = voc_annotation(
        "000002.jpg",
        Some((320, 240)),
        &[voc_obj("persn", [5, 5, 100, 100])],
    );
    let inverted = voc_annotation(
        "000003.jpg",
        Some((320, 240)),
        &[voc_obj("cat", [100, 5, 50, 100])],
    );
    let outside = voc_annotation(
        "000004.jpg",
        Some((320, 240)),
        &[voc_obj("cat", [5, 5, 400, 100])],
    );
    let resized = voc_annotation(
        "000005.jpg",
        Some((640, 480)),
        &[voc_obj("cat", [5, 5, 100, 100])],
    );
    let mut flags = voc_obj("dog", [5, 5, 100, 100]);
    flags.difficult = true;
    let difficult = voc_annotation("000006.jpg", Some((320, 240)), &[flags]);
    let no_size = voc_annotation("000007.jpg", None, &[voc_obj("cat", [5, 5, 100, 100])]);
    let cut = good[..good.len() / 2].to_vec();
    // The image named by <filename> (a PNG), not <stem>.jpg.
    let png_named = voc_annotation(
        "other.png",
        Some((320, 240)),
        &[voc_obj("cat", [5, 5, 100, 100])],
    );
    let base = voc_detection_tree(
        dir.path(),
        &[
            ("000001", good),
            ("000002", typo),
            ("000003", inverted),
            ("000004", outside),
            ("000005", resized),
            ("000006", difficult),
            ("000007", no_size),
            ("000008", cut),
        ],
        320,
        240,
    );
    put(
        dir.path(),
        &format!("{base}/Annotations/000009.xml"),
        &png_named,
    );
    put(
        dir.path(),
        &format!("{base}/JPEGImages/other.png"),
        &png_gray8(320, 240, &vec![0; 320 * 240]),
    );
    put(dir.path(), &format!("{base}/Annotations/000010.xml"), b"");
    put(
        dir.path(),
        &format!("{base}/JPEGImages/000010.jpg"),
        &jpeg_stub(320, 240),
    );
    let orphan = voc_annotation(
        "000011.jpg",
        Some((320, 240)),
        &[voc_obj("cat", [5, 5, 100, 100])],
    );
    put(
        dir.path(),
        &format!("{base}/Annotations/000011.xml"),
        &orphan,
    );
    let mut o = opts(Overrides::default());
    o.overlays = true;
    let report = scan(dir.path(), &o);
    assert!(codes_of(&report, "000001.xml").is_empty());
    assert_eq!(codes_of(&report, "000002.xml"), set(&["LG702"]));
    assert_eq!(codes_of(&report, "000003.xml"), set(&["LG705"]));
    assert_eq!(codes_of(&report, "000004.xml"), set(&["LG706"]));
    assert_eq!(codes_of(&report, "000005.xml"), set(&["LG708"]));
    assert!(codes_of(&report, "000006.xml").is_empty());
    assert_eq!(codes_of(&report, "000007.xml"), set(&["LG709"]));
    assert_eq!(codes_of(&report, "000008.xml"), set(&["LG602"]));
    assert!(codes_of(&report, "000009.xml").is_empty());
    assert_eq!(codes_of(&report, "000010.xml"), set(&["LG603"]));
    assert_eq!(codes_of(&report, "000011.xml"), set(&["LG707"]));
    let lg712: Vec<_> = report
        .dataset
        .iter()
        .filter(|f| f.finding.code == "LG712")
        .collect();
    assert_eq!(lg712.len(), 1);
    assert!(
        lg712[0].finding.message.contains("1 flagged difficult"),
        "{}",
        lg712[0].finding.message
    );
    // Overlays of the files with findings whose image decodes or whose size is known.
    let overlaid: BTreeSet<&str> = report
        .overlays
        .iter()
        .map(|(p, _)| p.rsplit('/').next().unwrap())
        .collect();
    for f in ["000002.xml", "000003.xml", "000004.xml", "000005.xml"] {
        assert!(overlaid.contains(f), "{f} in {overlaid:?}");
    }
    assert!(!overlaid.contains("000001.xml"));
}

#[test]
fn a_class_list_and_a_framework_decide_the_ids() {
    let dir = tempfile::tempdir().unwrap();
    let a = voc_annotation(
        "a.jpg",
        Some((50, 50)),
        &[
            voc_obj("zebra", [1, 1, 10, 10]),
            voc_obj("yak", [1, 1, 10, 10]),
        ],
    );
    voc_detection_tree(dir.path(), &[("a", a)], 50, 50);
    // Not VOC's classes: the sorted names found are the list; torchvision counts background.
    let report = scan(dir.path(), &opts(Overrides::default()));
    assert_eq!(
        report
            .all_findings()
            .filter(|f| f.finding.code == "LG702")
            .count(),
        0
    );
    let names: Vec<(i64, Option<String>)> = report
        .histogram
        .classes
        .values()
        .map(|r| (r.id, r.name.clone()))
        .collect();
    assert_eq!(names, [(1, Some("yak".into())), (2, Some("zebra".into()))]);
    // mmdet maps them to 0..K-1; a head of 2 classes fits.
    let report = scan(
        dir.path(),
        &opts(Overrides {
            framework: Some("mmdet".into()),
            num_classes: Some(2),
            ..Overrides::default()
        }),
    );
    let codes: Vec<&str> = report.all_findings().map(|f| f.finding.code).collect();
    assert!(
        !codes.contains(&"LG701") && !codes.contains(&"LG704"),
        "{codes:?}"
    );
    let names: Vec<(i64, Option<String>)> = report
        .histogram
        .classes
        .values()
        .map(|r| (r.id, r.name.clone()))
        .collect();
    assert_eq!(names, [(0, Some("yak".into())), (1, Some("zebra".into()))]);
    // torchvision with num_classes 2 for 2 classes: background is not counted.
    let report = scan(dir.path(), &opts(classes(2, 255)));
    assert!(report.all_findings().any(|f| f.finding.code == "LG701"));
}

#[test]
fn a_voc2012_tree_with_masks_and_xml_is_two_datasets() {
    let dir = tempfile::tempdir().unwrap();
    let base = "VOCdevkit/VOC2012";
    put(
        dir.path(),
        &format!("{base}/JPEGImages/a.jpg"),
        &jpeg_stub(8, 8),
    );
    put(
        dir.path(),
        &format!("{base}/SegmentationClass/a.png"),
        &png_gray8(8, 8, &[15; 64]),
    );
    put(
        dir.path(),
        &format!("{base}/Annotations/a.xml"),
        &voc_annotation("a.jpg", Some((8, 8)), &[voc_obj("person", [1, 1, 8, 8])]),
    );
    let o = Overrides {
        preset: Some("pascal-voc".into()),
        ..Overrides::default()
    };
    let report = scan(&dir.path().join("VOCdevkit"), &opts(o));
    let parts: Vec<(&str, &str)> = report
        .datasets
        .iter()
        .map(|d| (d.settings.roots[0].as_str(), d.histogram.unit.as_str()))
        .collect();
    assert_eq!(parts.len(), 2, "{parts:?}");
    assert!(
        parts[0].0.ends_with("VOC2012") && parts[0].1 == "pixels",
        "{parts:?}"
    );
    assert!(
        parts[1].0.ends_with("VOC2012 (detection)") && parts[1].1 == "objects",
        "{parts:?}"
    );
    // Both count person as class 15 of the preset (background 0), 64 pixels and 1 object.
    assert_eq!(report.datasets[0].histogram.classes[&15].count, 64);
    assert_eq!(report.datasets[1].histogram.classes[&15].count, 1);
    // The preset's classes no file uses are LG609 in both; background only in the masks'.
    let lg609: Vec<&str> = report
        .dataset
        .iter()
        .filter(|f| f.finding.code == "LG609")
        .map(|f| f.finding.message.as_str())
        .collect();
    assert_eq!(lg609.len(), 2, "{lg609:?}");
    assert!(lg609[0].contains("20 of 21") && lg609[0].contains("0 (background)"));
    // The objects' head counts background as class 0 (torchvision): 19 of its 20 object classes.
    assert!(
        lg609[1]
            .contains("19 of the 20 object classes of the 21-class head (class 0 is background)"),
        "{}",
        lg609[1]
    );
}
