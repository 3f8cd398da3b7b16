//! The text score of a hit split by field, from tantivy's explanation of it: what `explain=1`
//! shows as `"fields"` so a ranking can be read without walking the BM25 tree.
//!
//! Every term score is credited to its field (a title or URL word that abbreviates a query
//! word counts in `title_exact` or `url_text`), every phrase score (the proximity bonus) to
//! `"proximity"`; boosts are applied. The figures add up to the BM25 total.

use std::collections::BTreeMap;

use serde_json::Value;
use tantivy::schema::{Field, Schema};

/// The key the proximity bonus is credited to.
pub const PROXIMITY: &str = "proximity";

/// The text score of one hit by field name (and [`PROXIMITY`]), from the JSON form of its
/// tantivy `Explanation`. Parts it cannot place are credited to `"other"`.
pub fn field_scores(explanation: &Value, schema: &Schema) -> BTreeMap<String, f32> {
    let mut scores = BTreeMap::new();
    credit(explanation, 1.0, schema, &mut scores);
    scores
}

fn credit(node: &Value, factor: f32, schema: &Schema, scores: &mut BTreeMap<String, f32>) {
    let value = node["value"].as_f64().unwrap_or(0.0) as f32;
    let description = node["description"].as_str().unwrap_or_default();
    let children = node["details"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let mut add = |key: &str, score: f32| *scores.entry(key.to_string()).or_insert(0.0) += score;
    if description.starts_with("Phrase") {
        add(PROXIMITY, factor * value);
    } else if description.starts_with("TermQuery") {
        let field = node["context"]
            .as_array()
            .and_then(|context| context.iter().find_map(|c| field_of(c.as_str()?, schema)));
        add(field.as_deref().unwrap_or("other"), factor * value);
    } else if description.starts_with("Boost") {
        // One child, scaled: the boost is the ratio of the two values.
        if let [child] = children {
            let inner = child["value"].as_f64().unwrap_or(0.0) as f32;
            let boost = if inner == 0.0 { 0.0 } else { value / inner };
            credit(child, factor * boost, schema, scores);
        }
    } else if children.is_empty() {
        add("other", factor * value);
    } else {
        for child in children {
            credit(child, factor, schema, scores);
        }
    }
}

/// The field name in a term's context, `Term=Term(field=5, type=Str, "word")`.
fn field_of(context: &str, schema: &Schema) -> Option<String> {
    let digits = context.split_once("field=")?.1;
    let end = digits.find(|c: char| !c.is_ascii_digit())?;
    let id: u32 = digits[..end].parse().ok()?;
    let field = Field::from_field_id(id);
    (id < schema.num_fields() as u32).then(|| schema.get_field_name(field).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn term(field: u32, value: f64) -> Value {
        json!({"description": "TermQuery, product of...", "value": value,
            "context": [format!("Term=Term(field={field}, type=Str, \"w\")")],
            "details": [{"description": "(K1+1)", "value": 2.2}]})
    }

    #[test]
    fn scores_are_credited_to_fields_with_their_boosts() {
        let schema = index_format::schema();
        let id = |name: &str| schema.get_field(name).expect("a field").field_id();
        let explanation = json!({"description": "BooleanClause. sum of ...", "value": 25.0,
        "details": [
            {"description": "Boost x3 of ...", "value": 9.0, "details": [term(id("title"), 3.0)]},
            term(id("body"), 4.0),
            {"description": "Boost x2 of ...", "value": 12.0, "details": [
                {"description": "Phrase Scorer", "value": 6.0, "details": [
                    {"description": "TermQuery, product of...", "value": 6.0}]}]},
        ]});
        let scores = field_scores(&explanation, &schema);
        assert_eq!(scores["title"], 9.0);
        assert_eq!(scores["body"], 4.0);
        assert_eq!(scores[PROXIMITY], 12.0);
        assert_eq!(scores.values().sum::<f32>(), 25.0);
    }

    #[test]
    fn unknown_shapes_are_other_not_a_panic() {
        let schema = index_format::schema();
        let odd = json!({"description": "TermQuery", "value": 1.5,
            "context": ["Term=Term(field=999, type=Str, \"w\")"]});
        assert_eq!(field_scores(&odd, &schema)["other"], 1.5);
        assert!(
            field_scores(&json!(null), &schema)
                .values()
                .all(|v| *v == 0.0)
        );
    }
}
