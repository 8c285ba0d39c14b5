import { formatBytes, formatRate } from '../util';

interface Props {
  status: 'idle' | 'pending' | 'success' | 'error';
  progress: { bytesDone: number; bytesTotal: number; bytesPerSecond: number; phase: 'kdf' | 'chunks' } | undefined;
  onCancel: () => void;
}

/** A progress bar with bytes, MB/s and a cancel button while the job runs. */
export function Progress({ status, progress, onCancel }: Props) {
  if (status === 'idle') return null;
  const kdf = progress === undefined || progress.phase === 'kdf';
  return (
    <div className="progress" data-testid="progress" data-status={status}>
      <progress
        max={progress?.bytesTotal ?? 1}
        value={progress?.bytesDone ?? 0}
        data-testid="progress-bar"
        data-done={progress?.bytesDone ?? 0}
      />
      <div className="row">
        <span data-testid="rate">
          {status === 'pending' && kdf ? 'deriving the key from the password…' : ''}
          {progress !== undefined && !kdf
            ? `${formatBytes(progress.bytesDone)} of ${formatBytes(progress.bytesTotal)} · ${formatRate(progress.bytesPerSecond)}`
            : ''}
        </span>
        {status === 'pending' && <button type="button" className="secondary" data-testid="cancel" onClick={onCancel}>Cancel</button>}
      </div>
    </div>
  );
}
