//! Requests for documents (issue 45): the back office asks the proposal's seller for documents
//! (`POST /proposal/{identificador}/pending`), which suspends the acceptance clock; the seller
//! answers (`POST /proposal/{identificador}/pending/{id}/answer`) with a note and files, which
//! resumes it, the deadline moved by the time it stood suspended.

use crate::input::{Field, Reading};
use crate::validation::{Rejection, Violations, codes};
use base64::Engine;
use sha2::{Digest, Sha256};

/// The most items one request names.
pub const MAX_ITEMS: usize = 20;
/// The longest item, in characters.
pub const ITEM_MAX_CHARS: usize = 200;
/// The longest note (the request's or the answer's), in characters.
pub const NOTE_MAX_CHARS: usize = 1000;
/// The most files one answer carries.
pub const MAX_FILES: usize = 3;
/// The largest file, in bytes (5 MiB).
pub const MAX_FILE_BYTES: usize = 5 * 1024 * 1024;
/// The longest file name, in characters.
pub const FILE_NAME_MAX_CHARS: usize = 200;
/// The largest answer body: its files in base64 and room for the rest.
pub const MAX_ANSWER_BODY_BYTES: usize = MAX_FILES * MAX_FILE_BYTES.div_ceil(3) * 4 + 64 * 1024;

crate::wire_body! {
    /// `POST /proposal/{identificador}/pending`'s body.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(
            description = "Pedido de documentos da retaguarda: suspende o prazo de aceitação até a resposta do vendedor."
        )
    )]
    pub struct PendingBody => PendingMembers {
        /// O que falta, um item por documento (de 1 a 20 itens, cada um com até 200 caracteres).
        #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>, example = json!(["Comprovante de residência"])))]
        items: Field<Vec<Field<String>>>,
        /// Uma observação ao vendedor (até 1000 caracteres).
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "Enviar frente e verso"))]
        note: Field<String>,
    }
}

crate::wire_body! {
    /// `POST /proposal/{identificador}/pending/{id}/answer`'s body.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(
            description = "A resposta do vendedor a um pedido de documentos: retoma o prazo de aceitação, adiado pelo tempo suspenso."
        )
    )]
    pub struct AnswerBody => AnswerMembers {
        /// A resposta (de 1 a 1000 caracteres).
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "Segue o comprovante"))]
        note: Field<String>,
        /// Até 3 arquivos PDF, JPEG ou PNG de até 5 MiB cada (o tipo é lido do conteúdo).
        #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<FileBody>>))]
        files: Field<Vec<Field<FileBody>>>,
    }
}

crate::wire_body! {
    /// A file of an answer.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(description = "Um arquivo: o nome e o conteúdo em base64.")
    )]
    pub struct FileBody => FileMembers {
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "comprovante.pdf"))]
        name: Field<String>,
        /// O conteúdo em base64 (RFC 4648, com preenchimento).
        #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
        content: Field<String>,
    }
}

/// A request for documents as asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentsRequest {
    pub items: Vec<String>,
    pub note: Option<String>,
}

/// An answer as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingAnswerInput {
    pub note: String,
    pub files: Vec<UploadedFile>,
}

/// A file read and checked: its type by its content, its hash.
#[derive(Clone, PartialEq, Eq)]
pub struct UploadedFile {
    pub name: String,
    pub content_type: &'static str,
    pub bytes: Vec<u8>,
    pub sha256: String,
}

impl std::fmt::Debug for UploadedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A customer's document: never its bytes in a log.
        f.debug_struct("UploadedFile")
            .field("content_type", &self.content_type)
            .field("size", &self.bytes.len())
            .field("sha256", &self.sha256)
            .finish()
    }
}

/// The type of a file by its first bytes: PDF, JPEG or PNG; anything else is refused whatever its
/// name says.
pub fn content_type_of(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"%PDF-") {
        Some("application/pdf")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(&[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A]) {
        Some("image/png")
    } else {
        None
    }
}

fn item(text: &str) -> Result<String, Rejection> {
    let text = text.trim();
    if text.is_empty() {
        return Err(Rejection::new(codes::REQUIRED, "o item não pode ser vazio"));
    }
    if text.contains('\0') {
        return Err(Rejection::new(
            codes::INVALID_VALUE,
            "o item não pode conter o caractere nulo",
        ));
    }
    if text.chars().nth(ITEM_MAX_CHARS).is_some() {
        return Err(Rejection::new(
            codes::TOO_LONG,
            format!("o item deve ter no máximo {ITEM_MAX_CHARS} caracteres"),
        ));
    }
    Ok(text.to_owned())
}

impl PendingBody {
    pub fn read(self) -> Result<DocumentsRequest, Violations> {
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let items = r.parse_list(m.items.0, m.items.1, true, item);
        if items.as_ref().is_some_and(|items| items.len() > MAX_ITEMS) {
            r.add(
                m.items.0,
                codes::TOO_MANY,
                format!("{} deve ter no máximo {MAX_ITEMS} itens", m.items.0),
            );
        }
        let note = r.optional_text_within(m.note.0, m.note.1, NOTE_MAX_CHARS);
        match items {
            Some(items) if v.is_empty() => Ok(DocumentsRequest { items, note }),
            _ => Err(v),
        }
    }
}

impl AnswerBody {
    pub fn read(self) -> Result<PendingAnswerInput, Violations> {
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let note = r.text_within(m.note.0, m.note.1, NOTE_MAX_CHARS);
        let (files_name, files) = m.files;
        let files = match files {
            Field::Missing => Some(Vec::new()),
            files => r.objects(files_name, files, read_file),
        };
        if files.as_ref().is_some_and(|files| files.len() > MAX_FILES) {
            r.add(
                files_name,
                codes::TOO_MANY,
                format!("{files_name} deve ter no máximo {MAX_FILES} arquivos"),
            );
        }
        match (note, files) {
            (Some(note), Some(files)) if v.is_empty() => Ok(PendingAnswerInput { note, files }),
            _ => Err(v),
        }
    }
}

/// A file's name and content: the content base64, at most [`MAX_FILE_BYTES`] once decoded, of a
/// type read from its first bytes.
fn read_file(file: FileBody, r: &mut Reading<'_>) -> Option<UploadedFile> {
    let FileMembers {
        name: (name_member, name),
        content: (content_member, content),
    } = file.named();
    let name = r.text_within(name_member, name, FILE_NAME_MAX_CHARS);
    if name
        .as_deref()
        .is_some_and(|n| n.chars().any(|c| c.is_control() || c == '/' || c == '\\'))
    {
        r.add(
            name_member,
            codes::INVALID_VALUE,
            format!("{name_member} não pode conter barras nem caracteres de controle"),
        );
        return None;
    }
    let content = r.string(content_member, content)?;
    // Refused by its length before it is decoded: a huge body costs no decoding.
    if content.len() > MAX_FILE_BYTES.div_ceil(3) * 4 {
        r.add(
            content_member,
            codes::TOO_LONG,
            format!("o arquivo deve ter no máximo {} MiB", MAX_FILE_BYTES / (1024 * 1024)),
        );
        return None;
    }
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(content.trim()) else {
        r.add(
            content_member,
            codes::INVALID_VALUE,
            format!("{content_member} deve ser base64 (RFC 4648)"),
        );
        return None;
    };
    if bytes.is_empty() || bytes.len() > MAX_FILE_BYTES {
        r.add(
            content_member,
            codes::INVALID_VALUE,
            format!("o arquivo deve ter de 1 byte a {} MiB", MAX_FILE_BYTES / (1024 * 1024)),
        );
        return None;
    }
    let Some(content_type) = content_type_of(&bytes) else {
        r.add(
            content_member,
            codes::INVALID_VALUE,
            "o arquivo deve ser PDF, JPEG ou PNG",
        );
        return None;
    };
    let sha256 = hex::encode(Sha256::digest(&bytes));
    Some(UploadedFile {
        name: name?,
        content_type,
        bytes,
        sha256,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::body;
    use serde_json::json;

    fn fields(v: &Violations) -> Vec<String> {
        v.errors().iter().map(|e| e.field.clone()).collect()
    }

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    #[test]
    fn a_files_type_is_read_from_its_content_never_its_name() {
        assert_eq!(content_type_of(b"%PDF-1.7\n"), Some("application/pdf"));
        assert_eq!(content_type_of(&[0xFF, 0xD8, 0xFF, 0xE0]), Some("image/jpeg"));
        assert_eq!(content_type_of(b"\x89PNG\r\n\x1a\n...."), Some("image/png"));
        assert_eq!(content_type_of(b"MZ\x90\x00"), None);
        let answer = body::<AnswerBody>(json!({"note": "Segue", "files": [
            {"name": "comprovante.pdf", "content": b64(b"MZ executable")},
        ]}))
        .unwrap()
        .read()
        .unwrap_err();
        assert_eq!(fields(&answer), ["files[0].content"]);
    }

    #[test]
    fn an_answer_reads_its_note_and_files_with_their_hashes() {
        let answer = body::<AnswerBody>(json!({"note": " Segue o comprovante ", "files": [
            {"name": "c.pdf", "content": b64(b"%PDF-1.7 x")},
        ]}))
        .unwrap()
        .read()
        .unwrap();
        assert_eq!(answer.note, "Segue o comprovante");
        assert_eq!(answer.files[0].content_type, "application/pdf");
        assert_eq!(answer.files[0].sha256, hex::encode(Sha256::digest(b"%PDF-1.7 x")));
        let without_files = body::<AnswerBody>(json!({"note": "Sem anexos"}))
            .unwrap()
            .read()
            .unwrap();
        assert!(without_files.files.is_empty());
    }

    #[test]
    fn each_bad_member_is_named() {
        let too_big = vec![b'%'; MAX_FILE_BYTES + 1];
        let refused = body::<AnswerBody>(json!({"files": [
            {"name": "a/b.pdf", "content": b64(b"%PDF-")},
            {"name": "big.pdf", "content": b64(&too_big)},
            {"name": "x.png", "content": "não é base64"},
            "texto",
        ]}))
        .unwrap()
        .read()
        .unwrap_err();
        assert_eq!(
            fields(&refused),
            [
                "note",
                "files[0].name",
                "files[1].content",
                "files[2].content",
                "files[3]"
            ]
        );
        let refused = body::<PendingBody>(json!({"items": [], "note": 3}))
            .unwrap()
            .read()
            .unwrap_err();
        assert_eq!(fields(&refused), ["items", "note"]);
        let many: Vec<String> = (0..=MAX_ITEMS).map(|i| format!("Documento {i}")).collect();
        let refused = body::<PendingBody>(json!({"items": many})).unwrap().read().unwrap_err();
        assert_eq!(fields(&refused), ["items"]);
        let refused = body::<PendingBody>(json!({"items": ["ok", " ", "x".repeat(201)]}))
            .unwrap()
            .read()
            .unwrap_err();
        assert_eq!(fields(&refused), ["items[1]", "items[2]"]);
    }

    #[test]
    fn a_request_reads_its_items_trimmed() {
        let request = body::<PendingBody>(json!({"items": [" RG ", "Comprovante de residência"]}))
            .unwrap()
            .read()
            .unwrap();
        assert_eq!(request.items, ["RG", "Comprovante de residência"]);
        assert_eq!(request.note, None);
    }
}
