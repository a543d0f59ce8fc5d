DROP TABLE sealed_documents;
