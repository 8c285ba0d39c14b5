import { useRef, useState, type DragEvent } from 'react';
import { formatBytes } from '../util';

/** A drop target that is also a button opening the file picker. */
export function DropZone({ onFile, file }: { onFile: (file: File) => void; file: File | undefined }) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);

  const onDrop = (e: DragEvent<HTMLDivElement>) => {
    e.preventDefault();
    setOver(false);
    const f = e.dataTransfer.files[0];
    if (f !== undefined) onFile(f);
  };

  return (
    <div
      className={over ? 'drop over' : 'drop'}
      data-testid="dropzone"
      role="button"
      tabIndex={0}
      aria-label="Choose or drop a file"
      onClick={() => input.current?.click()}
      onKeyDown={(e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); input.current?.click(); } }}
      onDragEnter={(e) => { e.preventDefault(); setOver(true); }}
      onDragOver={(e) => { e.preventDefault(); e.dataTransfer.dropEffect = 'copy'; }}
      onDragLeave={() => { setOver(false); }}
      onDrop={onDrop}
    >
      {file === undefined
        ? <><strong>Drop a file here, or click to choose</strong><span>any size — it is read in chunks, never whole</span></>
        : <><strong data-testid="file-name">{file.name}</strong><span>{formatBytes(file.size)} · drop another file to replace it</span></>}
      <input
        ref={input}
        type="file"
        hidden
        data-testid="file-input"
        onChange={(e) => { const f = e.target.files?.[0]; if (f !== undefined) onFile(f); e.target.value = ''; }}
      />
    </div>
  );
}
