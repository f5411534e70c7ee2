"""O que o leitor vê do tema (o mapa da casa, no CONTRIBUINDO.md)."""
