"""Benchmark (não é teste): o build limpo do livro inteiro, por página.

Roda `jupyter-book build . --all` do zero, mede o tempo total e lê do log o tempo
de execução de cada página. Orçamento do projeto: <= 2 s por página.
Uso: make bench   (ou .venv/bin/python dev/bench_build.py [repetições])
"""
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]
JB = RAIZ / ".venv" / "bin" / "jupyter-book"


def um_build():
    shutil.rmtree(RAIZ / "_build", ignore_errors=True)
    t0 = time.perf_counter()
    p = subprocess.run([str(JB), "build", ".", "--all", "-W", "-n", "--keep-going"], cwd=RAIZ,
                       capture_output=True, text=True)
    total = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("O build falhou:\n" + p.stdout[-3000:] + p.stderr[-3000:])
    # deixa o site completo, como o `make book` deixaria (runtime do navegador)
    subprocess.run([sys.executable, "-m", "livro_ext.pos_build", str(RAIZ / "_build" / "html")],
                   check=True, capture_output=True)
    por_pagina = {m.group(1): float(m.group(2)) for m in
                  re.finditer(r"book/(\S+)\.md: Executed notebook in ([\d.]+) seconds", p.stdout + p.stderr)}
    paginas = len(list((RAIZ / "_build" / "html" / "book").glob("*.html")))
    return total, paginas, por_pagina


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    totais = []
    for _ in range(n):
        total, paginas, por_pagina = um_build()
        totais.append(total)
    totais.sort()
    mediana = totais[len(totais) // 2]
    print(f"build limpo: mediana {mediana:.1f} s em {n} rodada(s), {paginas} páginas, "
          f"{mediana / paginas:.2f} s por página (orçamento: 2 s)")
    for nome, t in sorted(por_pagina.items(), key=lambda kv: -kv[1]):
        print(f"  {nome:<16} execução {t:5.2f} s")


if __name__ == "__main__":
    main()
