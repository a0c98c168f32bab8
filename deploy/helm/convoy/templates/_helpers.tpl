{{/* The release's prefix for every object's name. */}}
{{- define "convoy.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "convoy.agents" -}}{{ include "convoy.fullname" . }}-agent{{- end -}}

{{- define "convoy.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "convoy.image" -}}{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}{{- end -}}

{{- define "convoy.tokenSecret" -}}{{ .Values.token.existingSecret | default (printf "%s-token" (include "convoy.fullname" .)) }}{{- end -}}

{{/* The token, from the Secret; runner and agents read it from the same variable. */}}
{{- define "convoy.tokenEnv" -}}
- name: CONVOY_AGENT_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "convoy.tokenSecret" . }}
      key: {{ .Values.token.key }}
{{- end -}}

{{- define "convoy.podSecurity" -}}
runAsNonRoot: true
runAsUser: {{ .Values.podSecurity.runAsUser }}
runAsGroup: {{ .Values.podSecurity.runAsGroup }}
fsGroup: {{ .Values.podSecurity.fsGroup }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* No capabilities: the agent signals only its own children (same user, same container). */}}
{{- define "convoy.containerSecurity" -}}
allowPrivilegeEscalation: false
capabilities:
  drop: [ALL]
{{- end -}}

{{/* Agent i's address: its pod's name under the headless Service. */}}
{{- define "convoy.agentAddress" -}}
{{- $ := index . 0 -}}{{- $i := index . 1 -}}
{{ include "convoy.agents" $ }}-{{ $i }}.{{ include "convoy.agents" $ }}.{{ $.Release.Namespace }}.svc:{{ $.Values.agents.port }}
{{- end -}}
