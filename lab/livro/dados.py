"""Os números que o curso mediu no GPT-2 small (`valores_curso.json`, um dado do pacote).

Lido com `importlib.resources`: vale no repositório, num notebook baixado (a pasta `livro/`
ao lado dele) e instalado, sem depender da pasta de onde se roda.
"""
import json
from importlib import resources

ARQUIVO = "valores_curso.json"


def valores_curso():
    """{chave: {"valor", "fonte", "tol", ...}}: cada número do curso com a frase de onde vem."""
    texto = resources.files("livro").joinpath(ARQUIVO).read_text(encoding="utf-8")
    return json.loads(texto)["valores"]
