"""make bench-listas: o ciclo de quem ensina contra os orçamentos da issue 54, com a régua do make bench.

- `make listas` de 40 alunos, com os PDFs (todos os exercícios): ≤ 2 min de relógio;
- `make corrige` de 300 alunos × todos os exercícios (um código por aluno, com as respostas certas,
  um erro típico e uma em branco): ≤ 10 s de CPU.
Cada medida é a mediana de 3 rodadas, cada uma num processo novo; "dentro" ou "FORA" ao lado.
"""
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bench_build import regua  # o mesmo trabalho fixo do make bench (dev/ é a pasta do script)

from livro.exercicios import EXERCICIOS, versao
from livro.exercicios import lista as L

RAIZ = Path(__file__).resolve().parents[1]
PY = str(RAIZ / ".venv" / "bin" / "python")
RODADAS = 3


def _cpu_filhos():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _mede(cmds):
    """(CPU s dos filhos, relógio s) de uma sequência de comandos."""
    c0, t0 = _cpu_filhos(), time.perf_counter()
    for c in cmds:
        subprocess.run(c, check=True, cwd=RAIZ, stdout=subprocess.DEVNULL)
    return _cpu_filhos() - c0, time.perf_counter() - t0


def _turma(pasta, n):
    (pasta / "turma.csv").write_text("nome;matrícula\n" + "".join(f"Aluno {k};m{k:03d}\n" for k in range(n)))
    return str(pasta / "turma.csv")


def _entregas(pasta, n):
    ids = list(EXERCICIOS)
    linhas = []
    for k in range(n):
        s = L.semente("bench", f"m{k:03d}")
        r = {i: versao(i, s).resposta_txt for i in ids[2:]}
        v = versao(ids[0], s)
        r[ids[0]] = v.texto(v.erros[0].valor) if v.erros else ""
        linhas.append(L.codigo("bench", f"m{k:03d}", ids, r))
    (pasta / "entregas.txt").write_text("\n".join(linhas) + "\n")
    return str(pasta / "entregas.txt")


def main():
    r0 = regua()
    print(f"régua da máquina: {r0:.2f} s de CPU (o menor de 3; um trabalho fixo, sem o livro)", flush=True)
    with tempfile.TemporaryDirectory() as d:
        pasta = Path(d)
        (pasta / "a").mkdir()
        (pasta / "b").mkdir()
        t40, t300 = _turma(pasta / "a", 40), _turma(pasta / "b", 300)
        listas = [[PY, "-m", "livro.exercicios.listas", "--lista", "bench", "--turma", t40, "--saida", str(pasta / "a")],
                  [PY, "-m", "livro_ext.pdf.listas", str(pasta / "a" / "bench")]]
        medidas = [_mede(listas) for _ in range(RODADAS)]
        cpu, rel = statistics.median(m[0] for m in medidas), statistics.median(m[1] for m in medidas)
        print(f"make listas, 40 alunos com PDFs e o Moodle/QTI: {rel:.1f} s de relógio, {cpu:.1f} s de CPU "
              f"({cpu / r0:.1f} réguas); orçamento 120 s de relógio: {'dentro' if rel <= 120 else 'FORA'}", flush=True)
        subprocess.run([PY, "-m", "livro.exercicios.listas", "--lista", "bench", "--turma", t300, "--versoes", "0",
                        "--saida", str(pasta / "b")], check=True, cwd=RAIZ, stdout=subprocess.DEVNULL)
        ent = _entregas(pasta / "b", 300)
        corrige = [[PY, "-m", "livro.exercicios.corrige", "--lista", "bench", "--turma", t300, "--entregas", ent,
                    "--saida", str(pasta / "b")]]
        medidas = [_mede(corrige) for _ in range(RODADAS)]
        cpu = statistics.median(m[0] for m in medidas)
        print(f"make corrige, 300 alunos × {len(EXERCICIOS)} exercícios: {cpu:.1f} s de CPU ({cpu / r0:.1f} réguas); "
              f"orçamento 10 s: {'dentro' if cpu <= 10 else 'FORA'}", flush=True)


if __name__ == "__main__":
    main()
