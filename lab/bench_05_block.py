"""Quanto tempo lab/05_block.py leva com a forma do GPT-2 small (um benchmark, não um teste).

Sem os pesos de verdade: monta um cache do Hugging Face com um GPT-2 small de pesos aleatórios
(GPT2Config(), a forma completa) e mede

1. o script inteiro, como o aluno roda (`python lab/05_block.py`, um processo novo);
2. cada experimento sozinho, com o modelo já carregado (dentro deste processo).

    python lab/bench_05_block.py              # cache temporário, apagado no fim
    python lab/bench_05_block.py --cache DIR  # guarda (ou reusa) o cache em DIR
"""
import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time

AQUI = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(AQUI, "05_block.py")


def prepara(raiz):
    """Monta o cache (se ainda não houver um) num processo à parte e devolve o ambiente."""
    from livro.gpt2 import cache as gpt2_cache

    if not os.path.isdir(os.path.join(raiz, "hub", "models--gpt2")):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c",
                        f"from livro.gpt2 import cache; cache.monta_cache({raiz!r})"], check=True, capture_output=True)
        print(f"cache com o GPT-2 small aleatório montado em {time.perf_counter() - t:.1f} s")
    return gpt2_cache.ambiente(raiz)


def script_inteiro(env):
    t = time.perf_counter()
    r = subprocess.run([sys.executable, SCRIPT], env=env, capture_output=True, text=True)
    total = time.perf_counter() - t
    if r.returncode != 0:
        sys.exit(r.stderr[-3000:])
    return total


def por_experimento(env):
    os.environ.update(env)  # antes de importar transformers: o hub lê as variáveis na importação
    spec = importlib.util.spec_from_file_location("bloco05", SCRIPT)
    b = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(b)
    tempos = {}
    t = time.perf_counter()
    modelo, tok = b.carrega_gpt2()
    tempos["carregar o GPT-2"] = time.perf_counter() - t
    chamadas = {1: lambda: b.experimento_1(modelo, tok), 2: b.experimento_2,
                3: lambda: b.experimento_3(modelo, tok), 4: lambda: b.experimento_4(modelo, tok),
                5: lambda: b.experimento_5(modelo), 6: b.experimento_6}
    nulo = open(os.devnull, "w")
    for k, f in chamadas.items():
        antigo, sys.stdout = sys.stdout, nulo
        try:
            t = time.perf_counter()
            f()
            tempos[f"experimento {k}"] = time.perf_counter() - t
        finally:
            sys.stdout = antigo
    return tempos


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", help="pasta para guardar/reusar o cache (padrão: temporária)")
    args = ap.parse_args(argv)
    raiz = args.cache or tempfile.mkdtemp(prefix="bench05_")
    try:
        env = prepara(raiz)
        import torch

        print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {os.cpu_count()} CPUs")
        total = script_inteiro(env)
        print(f"\npython lab/05_block.py (processo novo, os seis): {total:.1f} s")
        print("\ncada parte, com o modelo já carregado:")
        for nome, s in por_experimento(env).items():
            print(f"  {nome:18s} {s:6.2f} s")
    finally:
        if not args.cache:
            shutil.rmtree(raiz, ignore_errors=True)


if __name__ == "__main__":
    main()
