//! diesel's view of the tables in `migrations/` (kept by hand; the migration test checks that the
//! queries written against it run on the migrated schema).

diesel::table! {
    users (id) {
        id -> Int8,
        email -> Text,
        password_hash -> Text,
        name -> Nullable<Text>,
        cpf -> Nullable<Text>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    user_applications (user_id, application) {
        user_id -> Int8,
        application -> Text,
    }
}

diesel::table! {
    refresh_tokens (jti) {
        jti -> Uuid,
        family_id -> Uuid,
        user_id -> Int8,
        application -> Text,
        issued_at -> Timestamptz,
        expires_at -> Timestamptz,
        used_at -> Nullable<Timestamptz>,
        revoked_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    signin_throttle (scope, key) {
        scope -> Text,
        key -> Text,
        failures -> Int4,
        window_started_at -> Timestamptz,
        blocked_until -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    partners (id) {
        id -> Int8,
        cpf_cnpj -> Text,
        fantasy_name -> Nullable<Text>,
        social_reason -> Text,
        company_cnpj -> Nullable<Text>,
        company_fantasy_name -> Nullable<Text>,
        company_social_reason -> Nullable<Text>,
        association_cnpj -> Nullable<Text>,
        association_name -> Nullable<Text>,
        federation_cnpj -> Nullable<Text>,
        federation_name -> Nullable<Text>,
        alterado_por -> Text,
        criado_em -> Timestamptz,
        alterado_em -> Timestamptz,
    }
}

diesel::table! {
    representatives (id) {
        id -> Int8,
        user_id -> Int8,
        partner_id -> Int8,
        video_attendance_token -> Nullable<Text>,
        criado_em -> Timestamptz,
        alterado_em -> Timestamptz,
    }
}

diesel::table! {
    banks (codigo_banco) {
        codigo_banco -> Text,
        nome -> Text,
    }
}

diesel::table! {
    products (id) {
        id -> Int8,
        codigo_produto -> Int4,
        nome -> Text,
        codigo_integracao -> Int4,
        ativo -> Bool,
        alterado_por -> Text,
        criado_em -> Timestamptz,
        alterado_em -> Timestamptz,
    }
}

diesel::table! {
    product_banks (product_id, codigo_banco) {
        product_id -> Int8,
        codigo_banco -> Text,
    }
}

diesel::table! {
    billing_groups (id) {
        id -> Int8,
        codigo_faturamento -> Int4,
        descricao -> Text,
        codigo_integracao -> Int4,
        codigo_produto -> Int4,
        alterado_por -> Text,
        criado_em -> Timestamptz,
        alterado_em -> Timestamptz,
    }
}

diesel::joinable!(user_applications -> users (user_id));
diesel::joinable!(refresh_tokens -> users (user_id));
diesel::joinable!(representatives -> users (user_id));
diesel::joinable!(representatives -> partners (partner_id));
diesel::joinable!(product_banks -> products (product_id));
diesel::joinable!(product_banks -> banks (codigo_banco));

diesel::allow_tables_to_appear_in_same_query!(
    users,
    user_applications,
    refresh_tokens,
    signin_throttle,
    partners,
    representatives,
    banks,
    products,
    product_banks,
    billing_groups,
);
