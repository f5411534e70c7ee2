"""O PDF de cada lista de `make listas` (livro.exercicios.listas escreve o HTML): o Chromium do livro
imprime cada `alunos/<matrícula>.html` e o `gabarito.html` ao lado, com o mesmo nome e .pdf.

    python -m livro_ext.pdf.listas _build/listas/semana-4
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def imprimir(pasta) -> list[Path]:
    """Imprime os HTML da pasta de uma lista; devolve os PDFs, em ordem."""
    pasta = Path(pasta)
    htmls = sorted((pasta / "alunos").glob("*.html")) + [pasta / "gabarito.html"]
    if not (pasta / "lista.json").exists() or not htmls[-1].exists():
        raise SystemExit(f"make listas: {pasta} não é a pasta de uma lista (falta lista.json ou gabarito.html).")
    pares = [[str(h.resolve()), str(h.with_suffix(".pdf").resolve())] for h in htmls]
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(pares, f)
    try:
        r = subprocess.run(["node", str(Path(__file__).parent / "listas_imprime.mjs"), f.name],
                           env={**os.environ, "CHROMIUM": chromium})
    finally:
        os.unlink(f.name)
    if r.returncode:
        raise SystemExit("make listas: a impressão das listas no Chromium falhou (ver acima).")
    return [Path(p) for _, p in pares]


def main():
    pdfs = imprimir(sys.argv[1] if len(sys.argv) > 1 else "_build/listas/lista")
    print(f"{len(pdfs) - 1} listas e o gabarito em PDF em {pdfs[-1].parent}/")


if __name__ == "__main__":
    main()
