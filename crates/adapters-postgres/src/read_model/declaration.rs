//! The parts a proposal's document has from its creation, each declared once (decision 262): its
//! key in the document, the rows it is read from (joined to the proposal) and what of them it
//! keeps. Every statement that writes those parts' SQL is generated from this one declaration:
//! the build's ([`BUILD`], every write's and `check read-model`'s), route 5's and 6's own write of
//! the new document ([`new_document`], one statement and one round trip with the proposal) and
//! route 3's and 5's refresh of the customer in the documents whose copies they rewrite
//! ([`refreshed_documents`]).
//!
//! The parts that come later (signature, subscription, acceptance, refunds, billing, charges,
//! Pix recurrence, ledger) are read by their own statements (`parts`) and are absent from a new
//! document.

use crate::composed::Part;
use crate::statement::statement;
use diesel::QueryableByName;
use diesel::sql_types::{Int8, Text};

/// The declaration. Each line: the part's key; its rows, the first the proposal's own (`from`),
/// each other joined to it (`join`, or `left` when the proposal may have none), each named by
/// its table and, where route 5's statement writes that row itself, by the statement's part
/// that holds it (`written …`); then what the part keeps: the row less some columns (`row less`,
/// and those left out when null), the whole row (`row`), one column (`value`), or named columns
/// (`columns`, with the column that says whether a left-joined row is there). `$callback` makes
/// one statement's SQL of it.
macro_rules! created_parts {
    ($callback:ident ! ($($args:tt)*)) => {
        $crate::read_model::declaration::$callback! { ($($args)*)
            proposal: from "proposals" written "proposal" "p"
                => [row less "tipo_pagamento", "cpf_cliente"];
            product: join "products" "pr" on "pr.id = p.id_produto"
                => [columns nome = "pr.nome", codigo_produto = "pr.codigo_produto", ramo_iof = "pr.ramo_iof"];
            motivation: join "motivations" "m" on "m.id = p.id_motivacao"
                => [value "m.descricao"];
            // The person's columns are the registry's (`person_columns`): the copy is kept whole,
            // less the document's key and the list's search name.
            customer: join "proposal_customers" written "copied" "c" on "c.id_proposta = p.id"
                => [row less "id_proposta", "nome_busca"];
            partner: left "partners" "pa" on "pa.id = p.id_parceiro"
                => [row];
            representative: left "representatives" "r" on "r.id = p.id_representante",
                left "users" "u" on "u.id = r.user_id"
                => [columns when "r.id" cpf = "u.cpf", email = "u.email", name = "u.name",
                    video_attendance_token = "r.video_attendance_token"];
            // A payment's ISPB (Pix only) is absent rather than null, as its row writes it.
            payment: left "proposal_payments" written "payment" "pay" on "pay.id_proposta = p.id"
                => [row less "id_proposta" absent when null "ispb"];
            // Null when none was named (the legal heirs).
            beneficiaries: left "proposal_beneficiaries" written "beneficiaries" "ben" on "ben.id_proposta = p.id"
                => [value "ben.beneficiarios"];
            // The due diligence the screening called for (issue 70): null when none.
            kyc: left "proposal_kyc" written "kyc" "k" on "k.id_proposta = p.id"
                => [row less "id_proposta"];
        }
    };
}

/// A part's value in SQL, from what it keeps of its rows (`$alias` the first row's alias).
macro_rules! kept {
    (($alias:literal $(, $more:literal)*), [row]) => {
        concat!("to_jsonb(", $alias, ")")
    };
    (($alias:literal $(, $more:literal)*), [row less $($column:literal),+ $(absent when null $($nullable:literal),+)?]) => {
        concat!(
            "(to_jsonb(", $alias, ")",
            $(" - '", $column, "'",)+
            $($(" - CASE WHEN ", $alias, ".", $nullable, " IS NULL THEN '", $nullable, "' ELSE '' END",)+)?
            ")"
        )
    };
    (($alias:literal $(, $more:literal)*), [value $column:literal]) => {
        $column
    };
    (($alias:literal $(, $more:literal)*), [columns $first:ident = $first_column:literal $(, $key:ident = $column:literal)*]) => {
        concat!(
            "jsonb_build_object('", stringify!($first), "', ", $first_column,
            $(", '", stringify!($key), "', ", $column,)*
            ")"
        )
    };
    (($alias:literal $(, $more:literal)*), [columns when $present:literal $($columns:tt)*]) => {
        concat!(
            "CASE WHEN ", $present, " IS NULL THEN NULL ELSE ",
            $crate::read_model::declaration::kept!(($alias), [columns $($columns)*]),
            " END"
        )
    };
}

/// A row's source: its table in the build, the statement's own part in route 5 when it writes it.
macro_rules! source {
    (stored, $table:literal $(, $written:literal)?) => {
        $table
    };
    (written, $table:literal) => {
        $table
    };
    (written, $table:literal, $written:literal) => {
        $written
    };
}

/// The document's created parts as one `jsonb_build_object`, each part's value from the rows'
/// aliases (the same for the build and route 5).
macro_rules! document_object {
    (
        ()
        $first_key:ident : from $first_table:literal $(written $first_written:literal)? $first_alias:literal
            => $first_kept:tt;
        $(
            $key:ident : $($kind:ident $table:literal $(written $written:literal)? $alias:literal on $on:literal),+
                => $kept:tt;
        )*
    ) => {
        concat!(
            "jsonb_build_object('", stringify!($first_key), "', ",
            $crate::read_model::declaration::kept!(($first_alias), $first_kept),
            $(
                ", '", stringify!($key), "', ",
                $crate::read_model::declaration::kept!(($($alias),+), $kept),
            )*
            ")"
        )
    };
}

/// The rows the parts are read from (`FROM … JOIN …`): their tables (`stored`), or route 5's
/// own parts where it writes them (`written`).
macro_rules! document_rows {
    (
        ($which:ident)
        $first_key:ident : from $first_table:literal $(written $first_written:literal)? $first_alias:literal
            => $first_kept:tt;
        $(
            $key:ident : $($kind:ident $table:literal $(written $written:literal)? $alias:literal on $on:literal),+
                => $kept:tt;
        )*
    ) => {
        concat!(
            " FROM ",
            $crate::read_model::declaration::source!($which, $first_table $(, $first_written)?),
            " ", $first_alias,
            $($(
                $crate::read_model::declaration::join!($kind), " ",
                $crate::read_model::declaration::source!($which, $table $(, $written)?),
                " ", $alias, " ON ", $on,
            )+)*
        )
    };
}

macro_rules! join {
    (join) => {
        " JOIN"
    };
    (left) => {
        " LEFT JOIN"
    };
}

/// The customer's part alone, from the copy `c` (the key and value `customer_refresh` writes).
macro_rules! customer_only {
    (
        ()
        $first_key:ident : $($first:tt)*
    ) => {
        $crate::read_model::declaration::customer_only!(@find $first_key : $($first)*)
    };
    (@find customer : $kind:ident $table:literal $(written $written:literal)? $alias:literal on $on:literal
        => $kept:tt; $($rest:tt)*) => {
        concat!("'customer', ", $crate::read_model::declaration::kept!(($alias), $kept))
    };
    (@find $other:ident : $($line:tt)*) => {
        $crate::read_model::declaration::customer_only!(@skip $($line)*)
    };
    (@skip => $kept:tt; $($rest:tt)*) => {
        $crate::read_model::declaration::customer_only!(@find $($rest)*)
    };
    (@skip $token:tt $($rest:tt)*) => {
        $crate::read_model::declaration::customer_only!(@skip $($rest)*)
    };
}

pub(crate) use {customer_only, document_object, document_rows, join, kept, source};

/// A proposal's created parts, as one JSON object (its document less the later parts).
#[derive(QueryableByName)]
pub(super) struct Built {
    #[diesel(sql_type = Int8)]
    pub(super) id: i64,
    #[diesel(sql_type = Text)]
    pub(super) documento: String,
}

statement! {
    /// The created parts of the proposals `$1`, each as its document keeps them; a proposal
    /// without its copy of the customer (route 7 finds nothing without it) has none.
    pub(super) BUILD => Built = concat!(
        "SELECT p.id, ",
        created_parts!(document_object!()),
        "::text AS documento",
        created_parts!(document_rows!(stored)),
        " WHERE p.id = ANY($1)"
    );
}

/// The new document's statement text, once (route 5 composes it on every call).
const NEW_DOCUMENT: &str = concat!(
    "document AS (INSERT INTO proposal_read_models (id_proposta, identificador, fluxo, id_parceiro, documento) \
     SELECT p.id, p.identificador, p.fluxo, p.id_parceiro, ",
    created_parts!(document_object!()),
    created_parts!(document_rows!(written)),
    ")"
);

/// `document`: the new proposal's document, written by route 5's own statement (decision 172)
/// from the rows its `proposal`, `copied`, `payment`, `beneficiaries` and `kyc` parts wrote and those they name, as the
/// build makes it. A separate write of the document in the statement's transaction cost route 5
/// a fifth of its rate (docs/performance.md); the read-model tests prove this one reads back as
/// the build's, key for key.
pub(crate) fn new_document<'a>() -> Part<'a> {
    Part::text(NEW_DOCUMENT)
}

/// `refreshed_documents`: the documents of the proposals whose copies the statement's `refreshed`
/// part wrote (route 3's and 5's), their customer replaced by the copy as it now is, in the same
/// statement. `refreshed` holds each proposal's row lock (shared) as a status move or a claim
/// does, so a document written meanwhile by another transaction is the one updated here. A
/// proposal without its document, or one the guard marked, keeps its mark and is built whole at
/// its next read (the guard marks the one without a document at commit).
pub(crate) fn refreshed_documents<'a>() -> Part<'a> {
    Part::text(concat!(
        "refreshed_documents AS (UPDATE proposal_read_models d \
         SET documento = d.documento || jsonb_build_object(",
        created_parts!(customer_only!()),
        ") FROM refreshed c WHERE d.id_proposta = c.id_proposta)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_reads_the_parts_from_their_tables_and_route_5_from_the_rows_it_writes() {
        let build = BUILD.sql();
        let rows = created_parts!(document_rows!(stored));
        assert!(build.ends_with(&format!("{rows} WHERE p.id = ANY($1)")), "{build}");
        assert!(
            rows.starts_with(" FROM proposals p JOIN products pr ON pr.id = p.id_produto"),
            "{rows}"
        );
        assert!(
            rows.contains(" JOIN proposal_customers c ON c.id_proposta = p.id"),
            "{rows}"
        );
        assert!(
            rows.contains(" LEFT JOIN proposal_payments pay ON pay.id_proposta = p.id"),
            "{rows}"
        );
        let written = created_parts!(document_rows!(written));
        assert!(
            written.starts_with(" FROM proposal p JOIN products pr ON pr.id = p.id_produto"),
            "{written}"
        );
        assert!(written.contains(" JOIN copied c ON c.id_proposta = p.id"), "{written}");
        assert!(
            written.contains(" LEFT JOIN payment pay ON pay.id_proposta = p.id"),
            "{written}"
        );
        assert!(
            written.contains(" LEFT JOIN partners pa ON pa.id = p.id_parceiro"),
            "{written}"
        );
        assert!(NEW_DOCUMENT.ends_with(&format!("{written})")), "{NEW_DOCUMENT}");
    }

    #[test]
    fn each_kept_form_makes_its_value() {
        let object = created_parts!(document_object!());
        assert!(object.starts_with("jsonb_build_object('proposal', (to_jsonb(p) - 'tipo_pagamento' - 'cpf_cliente'), 'product', jsonb_build_object('nome', pr.nome, 'codigo_produto', pr.codigo_produto, 'ramo_iof', pr.ramo_iof), 'motivation', m.descricao, "), "{object}");
        assert!(object.contains(", 'partner', to_jsonb(pa), "), "{object}");
        assert!(object.contains("'representative', CASE WHEN r.id IS NULL THEN NULL ELSE jsonb_build_object('cpf', u.cpf, 'email', u.email, 'name', u.name, 'video_attendance_token', r.video_attendance_token) END"), "{object}");
        assert!(
            object.ends_with(
                "'payment', (to_jsonb(pay) - 'id_proposta' - CASE WHEN pay.ispb IS NULL THEN 'ispb' ELSE '' END), \
                 'beneficiaries', ben.beneficiarios, 'kyc', (to_jsonb(k) - 'id_proposta'))"
            ),
            "{object}"
        );
    }

    #[test]
    fn the_refresh_writes_the_customer_part_as_the_build_reads_it() {
        let customer = created_parts!(customer_only!());
        assert_eq!(customer, "'customer', (to_jsonb(c) - 'id_proposta' - 'nome_busca')");
        assert!(created_parts!(document_object!()).contains(customer));
    }
}
