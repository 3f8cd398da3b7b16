//! A page's stored fields as searchd reads them: [`StoredPage`].
//!
//! tantivy's own document type copies every stored value into an arena of its own as it
//! reads it, and each text was copied again to be used: up to 32 KiB of `body_start` per
//! result, three times. A [`StoredPage`] (tantivy's [`DocumentDeserialize`]) keeps the texts
//! the reader made, plain or pre-tokenized, and lends them: none is copied into an arena, nor
//! `body_start` to cut a snippet.

use tantivy::schema::Field;
use tantivy::schema::document::{
    ArrayAccess, DeserializeError, DocumentDeserialize, DocumentDeserializer, ObjectAccess,
    ValueDeserialize, ValueDeserializer, ValueVisitor,
};
use tantivy::tokenizer::PreTokenizedString;

/// A stored document's values: texts (plain, or the text of a pre-tokenized value: the
/// stemmed fields of a document in a language the index does not stem by default are added
/// so) and numbers, unsigned or signed; values of other kinds are read past.
#[derive(Debug, Default)]
pub(crate) struct StoredPage {
    values: Vec<(Field, Stored)>,
}

#[derive(Debug)]
enum Stored {
    Text(String),
    Number(u64),
    Signed(i64),
    Other,
}

impl StoredPage {
    /// The first text of `field`, as stored (empty when missing).
    pub(crate) fn text(&self, field: Field) -> &str {
        self.values
            .iter()
            .find_map(|(f, value)| match value {
                Stored::Text(text) if *f == field => Some(text.as_str()),
                _ => None,
            })
            .unwrap_or_default()
    }

    /// The first number of `field`, if it has one.
    pub(crate) fn number(&self, field: Field) -> Option<u64> {
        self.values.iter().find_map(|(f, value)| match value {
            Stored::Number(number) if *f == field => Some(*number),
            _ => None,
        })
    }
}

impl StoredPage {
    /// The first signed number of `field` (a date), if it has one.
    pub(crate) fn signed(&self, field: Field) -> Option<i64> {
        self.values.iter().find_map(|(f, value)| match value {
            Stored::Signed(number) if *f == field => Some(*number),
            _ => None,
        })
    }
}

impl DocumentDeserialize for StoredPage {
    fn deserialize<'de, D>(mut deserializer: D) -> Result<Self, DeserializeError>
    where
        D: DocumentDeserializer<'de>,
    {
        let mut values = Vec::with_capacity(deserializer.size_hint());
        while let Some(entry) = deserializer.next_field::<Stored>()? {
            values.push(entry);
        }
        Ok(Self { values })
    }
}

impl ValueDeserialize for Stored {
    fn deserialize<'de, D>(deserializer: D) -> Result<Self, DeserializeError>
    where
        D: ValueDeserializer<'de>,
    {
        deserializer.deserialize_any(StoredVisitor)
    }
}

struct StoredVisitor;

impl ValueVisitor for StoredVisitor {
    type Value = Stored;

    fn visit_null(&self) -> Result<Stored, DeserializeError> {
        Ok(Stored::Other)
    }

    fn visit_string(&self, text: String) -> Result<Stored, DeserializeError> {
        Ok(Stored::Text(text))
    }

    fn visit_u64(&self, number: u64) -> Result<Stored, DeserializeError> {
        Ok(Stored::Number(number))
    }

    fn visit_i64(&self, number: i64) -> Result<Stored, DeserializeError> {
        Ok(Stored::Signed(number))
    }

    fn visit_f64(&self, _: f64) -> Result<Stored, DeserializeError> {
        Ok(Stored::Other)
    }

    fn visit_bool(&self, _: bool) -> Result<Stored, DeserializeError> {
        Ok(Stored::Other)
    }

    fn visit_datetime(&self, _: tantivy::DateTime) -> Result<Stored, DeserializeError> {
        Ok(Stored::Other)
    }

    fn visit_ip_address(&self, _: std::net::Ipv6Addr) -> Result<Stored, DeserializeError> {
        Ok(Stored::Other)
    }

    fn visit_facet(&self, _: tantivy::schema::Facet) -> Result<Stored, DeserializeError> {
        Ok(Stored::Other)
    }

    fn visit_bytes(&self, _: Vec<u8>) -> Result<Stored, DeserializeError> {
        Ok(Stored::Other)
    }

    fn visit_pre_tokenized_string(
        &self,
        pre: PreTokenizedString,
    ) -> Result<Stored, DeserializeError> {
        Ok(Stored::Text(pre.text))
    }

    fn visit_array<'de, A>(&self, mut access: A) -> Result<Stored, DeserializeError>
    where
        A: ArrayAccess<'de>,
    {
        while access.next_element::<Stored>()?.is_some() {}
        Ok(Stored::Other)
    }

    fn visit_object<'de, A>(&self, mut access: A) -> Result<Stored, DeserializeError>
    where
        A: ObjectAccess<'de>,
    {
        while access.next_entry::<Stored>()?.is_some() {}
        Ok(Stored::Other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::schema::{STORED, Schema, TEXT};
    use tantivy::tokenizer::Token;
    use tantivy::{Index, TantivyDocument};

    #[test]
    fn a_stored_page_reads_texts_pre_tokenized_texts_and_numbers_as_stored() {
        let mut schema = Schema::builder();
        let title = schema.add_text_field("title", TEXT | STORED);
        let body = schema.add_text_field("body", STORED);
        let inlinks = schema.add_u64_field("inlinks", STORED);
        let score = schema.add_f64_field("score", STORED);
        let missing = schema.add_text_field("missing", STORED);
        let index = Index::create_in_ram(schema.build());
        let mut writer = index
            .writer_with_num_threads(1, 15_000_000)
            .expect("writer");
        let mut doc = TantivyDocument::default();
        doc.add_f64(score, 0.5);
        doc.add_pre_tokenized_text(
            title,
            PreTokenizedString {
                text: "Les marées".to_string(),
                tokens: vec![Token {
                    offset_from: 4,
                    offset_to: 11,
                    position: 0,
                    text: "mare".to_string(),
                    position_length: 1,
                }],
            },
        );
        doc.add_text(body, "Tides come in twice a day.");
        doc.add_text(body, "A second value.");
        doc.add_u64(inlinks, 7);
        writer.add_document(doc).expect("add");
        writer.commit().expect("commit");
        let searcher = index.reader().expect("reader").searcher();
        let page: StoredPage = searcher
            .doc(tantivy::DocAddress::new(0, 0))
            .expect("a stored page");
        assert_eq!(page.text(title), "Les marées");
        assert_eq!(page.text(body), "Tides come in twice a day.");
        assert_eq!(page.number(inlinks), Some(7));
        assert_eq!(page.number(title), None);
        assert_eq!(page.text(missing), "");
        assert_eq!(page.text(inlinks), "");
    }
}
