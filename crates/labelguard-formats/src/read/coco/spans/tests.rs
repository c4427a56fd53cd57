//! The strict span walk: every truncation and malformed file is a syntax error, and it agrees
//! with serde_json on what is JSON.

use super::*;

#[test]
fn truncated_and_malformed_files_are_errors() {
    let good =
        r#"{"categories":[{"id":1,"name":"a"}],"annotations":[{"category_id":1,"bbox":[1.5,2]}]}"#;
    assert!(scan(good.as_bytes()).is_ok());
    for cut in 0..good.len() {
        let e = scan(&good.as_bytes()[..cut]).unwrap_err();
        assert!(matches!(e, CocoError::Syntax { .. }), "{cut}: {e:?}");
    }
    for bad in [
        r#"{"categories":[{"id":1}],}"#,
        r#"{"categories":[{"id":01}]}"#,
        r#"{"categories":[{"id":1}]} x"#,
        "{\"categories\":[{\"id\":1,\"name\":\"a\tb\"}]}",
        r#"{"categories":[{"id":1,"name":"\q"}]}"#,
        r#"{"categories":[{"id":1.}]}"#,
        r#"{"categories":[{"id":tru}]}"#,
    ] {
        assert!(scan(bad.as_bytes()).is_err(), "{bad}");
    }
    let deep = format!("{{\"a\":{}{}}}", "[".repeat(10_000), "]".repeat(10_000));
    assert!(scan(deep.as_bytes()).is_err());
}

#[test]
fn the_scanner_agrees_with_serde_json_on_every_one_byte_change() {
    let good = br#"{"info":{"v":[1.5e-3,-0,true,null,"a\"b\u00e9"]},"categories":[{"id":3,"name":"x"}],"annotations":[{"category_id":3,"bbox":[0.5,1]}]}"#;
    for i in 0..good.len() {
        for b in [
            b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b'0', b'-', b'.', b'e', b' ', 0u8,
            0xff,
        ] {
            let mut m = good.to_vec();
            m[i] = b;
            let serde_ok = serde_json::from_slice::<serde_json::Value>(&m).is_ok();
            // Never a panic; what serde_json accepts the scanner accepts, and a syntax
            // error of the scanner is one for serde_json too (bad UTF-8 included).
            match scan(&m) {
                Ok(_) | Err(CocoError::Invalid(_)) => {}
                Err(e @ CocoError::Syntax { .. }) => assert!(!serde_ok, "{i} {b}: {e}"),
            }
            if serde_ok {
                assert!(
                    !matches!(scan(&m), Err(CocoError::Syntax { .. })),
                    "{i} {b}"
                );
            }
        }
    }
}

/// The category ids the streaming reader sees.
#[derive(Default)]
struct Ids {
    categories: Vec<Option<i64>>,
    annotations: Vec<Option<i64>>,
}

impl crate::read::coco::Sink for Ids {
    fn image(&mut self, _: usize, _: crate::read::coco::Image) {}
    fn annotation(&mut self, _: usize, a: crate::read::coco::Annotation) {
        self.annotations.push(a.category_id);
    }
    fn category(&mut self, _: usize, c: crate::read::coco::Category) {
        self.categories.push(c.id);
    }
    fn section_done(&mut self, _: crate::read::coco::Section) {}
    fn not_an_array(&mut self, _: crate::read::coco::Section) {}
}

#[test]
fn the_span_walk_and_the_stream_agree_on_every_one_byte_change() {
    let good = br#"{"images":[{"id":1,"width":4,"height":4}],"categories":[{"id":3,"name":"x"},{"name":"y","id":7}],"annotations":[{"category_id":3,"bbox":[0.5,1,2,2]},{"id":2,"category_id":7,"segmentation":[[1,2,3,4,5,6]]}]}"#;
    let (mut agreed, mut strict_only_rejected) = (0, 0);
    for i in 0..good.len() {
        for b in [
            b'"', b'{', b'}', b'[', b']', b',', b':', b'1', b'-', b' ', b'x',
        ] {
            let mut m = good.to_vec();
            m[i] = b;
            let mut ids = Ids::default();
            let streamed = crate::read::coco::read_coco(&m[..], &mut ids).is_ok();
            match scan(&m) {
                // What the strict walk accepts, the stream reads, to the same ids.
                Ok(f) => {
                    assert!(streamed, "{}", String::from_utf8_lossy(&m));
                    let cats: Vec<Option<i64>> = f.categories.iter().map(|c| Some(c.id)).collect();
                    let anns: Vec<Option<i64>> = f
                        .annotations
                        .iter()
                        .map(|a| a.category.map(|c| c.0))
                        .collect();
                    assert_eq!((cats, anns), (ids.categories, ids.annotations));
                    agreed += 1;
                }
                Err(_) if streamed => strict_only_rejected += 1,
                Err(_) => {}
            }
        }
    }
    // Both outcomes occur: the cases are not all one kind.
    assert!(
        agreed > 50 && strict_only_rejected > 0,
        "{agreed} {strict_only_rejected}"
    );
}
