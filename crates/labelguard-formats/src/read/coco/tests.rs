//! The streaming COCO reader: key orders, escapes, unicode, nested segmentation, numbers,
//! elements across chunk boundaries, and broken files.

use super::*;

#[derive(Default, Debug)]
struct Got {
    images: Vec<(usize, Image)>,
    annotations: Vec<(usize, Annotation)>,
    categories: Vec<(usize, Category)>,
    done: Vec<Section>,
    not_arrays: Vec<Section>,
}

impl Sink for Got {
    fn image(&mut self, i: usize, e: Image) {
        self.images.push((i, e));
    }
    fn annotation(&mut self, i: usize, e: Annotation) {
        self.annotations.push((i, e));
    }
    fn category(&mut self, i: usize, e: Category) {
        self.categories.push((i, e));
    }
    fn section_done(&mut self, s: Section) {
        self.done.push(s);
    }
    fn not_an_array(&mut self, s: Section) {
        self.not_arrays.push(s);
    }
}

/// A reader that hands out at most `n` bytes per call (chunk boundaries everywhere).
struct Dribble<'a>(&'a [u8], usize);

impl Read for Dribble<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.1.min(out.len()).min(self.0.len());
        out[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

fn read(text: &str) -> Got {
    let mut g = Got::default();
    match read_coco(text.as_bytes(), &mut g) {
        Ok(()) => g,
        Err(ReadError::Corrupt(f)) => panic!("corrupt: {}", f.message),
        Err(ReadError::Io(e)) => panic!("io: {e}"),
    }
}

fn corrupt(text: &[u8]) -> String {
    let mut g = Got::default();
    match read_coco(text, &mut g) {
        Err(ReadError::Corrupt(f)) => {
            assert_eq!(f.code, "LG602");
            f.message
        }
        Ok(()) => panic!("read as valid: {}", String::from_utf8_lossy(text)),
        Err(ReadError::Io(e)) => panic!("io: {e}"),
    }
}

const SMALL: &str = r#"{
  "info": {"description": "x", "nested": [1, {"a": "]}"}]},
  "licenses": [],
  "images": [{"id": 1, "file_name": "a.jpg", "width": 640, "height": 480}],
  "annotations": [
    {"id": 10, "image_id": 1, "category_id": 3, "bbox": [1, 2.5, 30, 40], "iscrowd": 0,
     "segmentation": [[1, 2, 31, 2, 31, 42], [0, 0, 5, 5]], "area": 1200}
  ],
  "categories": [{"id": 3, "name": "cat", "supercategory": "animal"}]
}"#;

#[test]
fn reads_the_usual_order() {
    let g = read(SMALL);
    assert_eq!(g.images.len(), 1);
    let im = &g.images[0].1;
    assert_eq!((im.id, im.file_name.as_deref()), (Some(1), Some("a.jpg")));
    assert_eq!((im.width, im.height), (Some(640.0), Some(480.0)));
    let a = &g.annotations[0].1;
    assert_eq!(
        (a.id, a.image_id, a.category_id),
        (Some(10), Some(1), Some(3))
    );
    let b = a.bbox.unwrap();
    assert_eq!(
        (b.values, b.len, b.finite),
        ([1.0, 2.5, 30.0, 40.0], 4, true)
    );
    assert!(!a.iscrowd);
    assert_eq!(
        a.segmentation,
        Some(Segmentation::Polygons {
            bounds: Some([0.0, 0.0, 31.0, 42.0]),
            odd: false
        })
    );
    assert_eq!(g.categories[0].1.name.as_deref(), Some("cat"));
    assert_eq!(
        g.done,
        vec![Section::Images, Section::Annotations, Section::Categories]
    );
}

#[test]
fn any_key_order_and_chunking_give_the_same_records() {
    let reordered = r#"{"categories":[{"name":"cat","id":3}],"annotations":[{"bbox":[1,2.5,30,40],"category_id":3,"image_id":1,"id":10,"segmentation":[[1,2,31,2,31,42],[0,0,5,5]],"iscrowd":0}],"info":{},"images":[{"height":480,"width":640,"file_name":"a.jpg","id":1}]}"#;
    let a = read(SMALL);
    let b = read(reordered);
    assert_eq!(a.annotations, b.annotations);
    assert_eq!(a.images, b.images);
    assert_eq!(b.done[0], Section::Categories);
    for step in [1, 2, 3, 7, 64] {
        let mut g = Got::default();
        assert!(read_coco(Dribble(SMALL.as_bytes(), step), &mut g).is_ok());
        assert_eq!(g.annotations, a.annotations, "{step}-byte reads");
        assert_eq!(g.images, a.images, "{step}-byte reads");
    }
}

#[test]
fn escapes_and_unicode_in_strings_and_keys() {
    let g = read(
        r#"{"\u0069nfo": "a \"quoted\" ]} [{", "images": [{"id": 2, "file_name": "d\u00e9j\u00e0 vu/\ud83d\ude00 \\ \"x\".jpg", "width": 1, "height": 1}], "annotations": [], "categories": [{"id": 1, "name": "猫"}]}"#,
    );
    assert_eq!(
        g.images[0].1.file_name.as_deref(),
        Some("déjà vu/😀 \\ \"x\".jpg")
    );
    assert_eq!(g.categories[0].1.name.as_deref(), Some("猫"));
}

#[test]
fn numbers_in_every_json_form() {
    let g = read(
        r#"{"annotations": [{"id": 1, "image_id": 2, "category_id": 3, "bbox": [1e2, -0.0, 2.5E+1, 1E-1]}]}"#,
    );
    let b = g.annotations[0].1.bbox.unwrap();
    assert_eq!(b.values, [100.0, -0.0, 25.0, 0.1]);
    assert!(b.values[1].is_sign_negative());
}

#[test]
fn rle_size_crowd_and_python_nan() {
    let g = read(
        r#"{"annotations": [
        {"id": 1, "image_id": 2, "category_id": 3, "bbox": [0, 0, 1, 1], "iscrowd": 1,
         "segmentation": {"counts": [0, 5, 10], "size": [480, 640]}},
        {"id": 2, "image_id": 2, "category_id": 3, "bbox": [NaN, 0, Infinity, -Infinity], "iscrowd": true,
         "segmentation": {"size": [4, 5], "counts": "PPYo0"}},
        {"id": 3, "image_id": 2, "category_id": 3, "bbox": [0, 0, 1], "segmentation": [[1, 2, 3]]}
    ]}"#,
    );
    let a = &g.annotations;
    assert!(a[0].1.iscrowd && a[1].1.iscrowd && !a[2].1.iscrowd);
    assert_eq!(
        a[0].1.segmentation,
        Some(Segmentation::Rle {
            size: Some([480.0, 640.0])
        })
    );
    let nan = a[1].1.bbox.unwrap();
    assert!(!nan.finite && nan.len == 4);
    assert!(a[1].1.problems.is_empty(), "{:?}", a[1].1.problems);
    assert_eq!(a[2].1.bbox.unwrap().len, 3);
    assert_eq!(
        a[2].1.segmentation,
        Some(Segmentation::Polygons {
            bounds: Some([1.0, 2.0, 1.0, 2.0]),
            odd: true
        })
    );
}

#[test]
fn wrong_types_are_named_field_by_field() {
    let g = read(
        r#"{"images": [{"id": "7", "file_name": 3, "width": 10, "height": 10}, 5],
        "annotations": [{"id": 1.5, "image_id": 2, "category_id": 3, "bbox": "0 0 1 1"}]}"#,
    );
    let im = &g.images[0].1;
    let fields: Vec<&str> = im.problems.iter().map(|(f, _)| *f).collect();
    assert_eq!(fields, ["id", "file_name"]);
    assert_eq!((im.width, im.id), (Some(10.0), None));
    assert_eq!(
        g.images[1].1.problems,
        vec![("", "is not an object".into())]
    );
    let a = &g.annotations[0].1;
    let fields: Vec<&str> = a.problems.iter().map(|(f, _)| *f).collect();
    assert_eq!(fields, ["id", "bbox"]);
    assert_eq!(
        (a.image_id, a.category_id, a.bbox),
        (Some(2), Some(3), None)
    );
}

#[test]
fn a_section_that_is_not_a_list_is_skipped() {
    let g = read(r#"{"images": {"id": 1}, "annotations": [], "categories": null}"#);
    assert_eq!(g.not_arrays, vec![Section::Images, Section::Categories]);
    assert_eq!(g.done, vec![Section::Annotations]);
}

#[test]
fn broken_files_name_the_byte_and_line() {
    let m = corrupt(b"{\"images\": [{\"id\": 1}, {\"id\": 2");
    assert!(m.contains("truncated"), "{m}");
    let m = corrupt(b"{\"images\": [{\"id\": 1}]");
    assert!(m.contains("truncated"), "{m}");
    let m = corrupt(b"{\n\"images\": [\n{\"id\": 1},\n{\"id\": 1 x}]}");
    assert!(m.contains("line 4"), "{m}");
    let m = corrupt(b"[1, 2]");
    assert!(
        m.contains("expected a JSON object") && m.contains("byte 0"),
        "{m}"
    );
    let m = corrupt(b"{\"images\": []} extra");
    assert!(m.contains("data after"), "{m}");
    let m = corrupt(b"   \n ");
    assert!(m.contains("whitespace"), "{m}");
    let m = corrupt(b"{\"images\": [1 2]}");
    assert!(m.contains("expected ',' or ']' after images[0]"), "{m}");
    let m = corrupt(b"{\"info\": {\"a\": [1, 2}");
    assert!(m.contains("truncated") || m.contains("expected"), "{m}");
    let m = corrupt(b"{\"images\": [{\"id\": \"\xff\"}]}");
    assert!(m.contains("byte"), "{m}");
}

#[test]
fn a_bom_and_empty_object_are_fine() {
    let g = read("\u{feff}{}");
    assert!(g.done.is_empty());
    let g = read("{\"annotations\": [ ] }");
    assert_eq!(g.done, vec![Section::Annotations]);
}

#[test]
fn elements_larger_than_a_chunk_are_read_whole() {
    let n = 300_000;
    let poly: Vec<String> = (0..n).map(|i| format!("{}.5", i % 1000)).collect();
    let text = format!(
        r#"{{"annotations": [{{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1], "segmentation": [[{}]]}}, {{"id": 2}}]}}"#,
        poly.join(", ")
    );
    assert!(text.len() > CHUNK / 8);
    let mut g = Got::default();
    assert!(read_coco(Dribble(text.as_bytes(), 1 << 20), &mut g).is_ok());
    assert_eq!(g.annotations.len(), 2);
    assert_eq!(
        g.annotations[0].1.segmentation,
        Some(Segmentation::Polygons {
            bounds: Some([0.5, 1.5, 998.5, 999.5]),
            odd: false
        })
    );
}
